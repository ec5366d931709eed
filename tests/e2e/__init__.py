"""End-to-end tests: the real PTB application against a fake Bot API server."""
