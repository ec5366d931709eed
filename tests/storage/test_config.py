from pathlib import Path

from storage.config import default_db_path


def test_default_is_a_file_in_the_working_directory() -> None:
    assert default_db_path({}) == Path("chaodipi.db")
    assert default_db_path({"CHAODIPI_DB": "  "}) == Path("chaodipi.db")


def test_environment_variable_wins() -> None:
    assert default_db_path({"CHAODIPI_DB": "/data/league.db"}) == Path("/data/league.db")
