// The league page: a group's table and each ranked player's 积分 over the stretch's hands, drawn as SVG.
// Its data is the picture's (GET api/league/<chat>), so the page and the bot's picture agree.
(function () {
  "use strict";
  const signin = window.chaodipiSignIn;  // signin.js: Telegram's initData, or chaodipi play's local sign-in
  const message = document.getElementById("message");
  function say(text) { message.textContent = text; message.hidden = false; }
  if (!signin) {
    say("请在 Telegram 里打开联赛页面：在群里发 /leaderboard，点「📈 联赛页面」。 " +
        "Open this page from Telegram: send /leaderboard in your group and press “📈 League page”.");
    return;
  }
  const tg = signin.tg;  // null in a browser (chaodipi play)
  if (tg) tg.ready();
  // Telegram's theme, as the table's page takes it (a dark table must not lead to a white league).
  function applyTheme() {
    const theme = (tg && tg.themeParams) || {};
    for (const key of Object.keys(theme)) {
      document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), theme[key]);
    }
  }
  applyTheme();
  if (tg && tg.onEvent) tg.onEvent("themeChanged", applyTheme);
  const params = new URLSearchParams(location.search);
  const table = params.get("t");  // opened from a table's page: Telegram's back button goes back to it
  if (table && /^\d+$/.test(table) && tg && tg.BackButton) {
    tg.BackButton.onClick(() => { location.href = "./?t=" + table; });
    tg.BackButton.show();
  } else if (table && /^\d+$/.test(table)) {  // a browser's page has no back button of Telegram's: a link
    const back = document.getElementById("back");
    back.href = "./?t=" + table;
    back.hidden = false;
  }
  const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
                   "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"];
  const SVG = "http://www.w3.org/2000/svg";

  async function api(path) {
    const response = await fetch(path, { headers: { "Authorization": signin.header } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok || !body.ok) throw new Error(body.error || String(response.status));
    return body;
  }

  function element(name, attributes, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function niceStep(range) {
    const raw = range / 5, power = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || power * 10;
  }

  function drawChart(chart) {
    const svg = document.getElementById("chart");
    svg.replaceChildren();
    const W = 420, H = 260, left = 34, right = 62, top = 10, bottom = 30;
    if (!chart.lines.length) {
      svg.appendChild(element("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, chart.empty));
      return;
    }
    let maxX = 2, minY = 0, maxY = 0;
    for (const line of chart.lines) {
      for (const [x, y] of line.points) { maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y); }
    }
    if (minY === maxY) { minY -= 1; maxY += 1; }
    const sx = (x) => left + (x - 1) / (maxX - 1) * (W - left - right);
    const sy = (y) => top + (maxY - y) / (maxY - minY) * (H - top - bottom);
    const step = niceStep(maxY - minY);
    for (let y = Math.ceil(minY / step) * step; y <= maxY; y += step) {
      svg.appendChild(element("line", { x1: left, x2: W - right, y1: sy(y), y2: sy(y),
        stroke: y === 0 ? "#aaaaaa" : "#e4e4e4", "stroke-width": 1 }));
      svg.appendChild(element("text", { x: left - 6, y: sy(y) + 4, "text-anchor": "end" },
        String(y).replace("-", "−")));
    }
    const xStep = niceStep(maxX - 1);
    for (let x = xStep; x <= maxX; x += xStep) {
      svg.appendChild(element("text", { x: sx(x), y: H - bottom + 16, "text-anchor": "middle" }, String(x)));
    }
    svg.appendChild(element("text", { x: (left + W - right) / 2, y: H - 2, "text-anchor": "middle" }, chart.x_label));
    const ends = [];
    chart.lines.forEach((line, index) => {
      let d = "", previous = null;
      for (const [x, y] of line.points) {
        d += previous === null ? `M${sx(x)},${sy(y)}` : `H${sx(x)}V${sy(y)}`;
        previous = y;
      }
      svg.appendChild(element("path", { d, fill: "none", stroke: COLOURS[index % COLOURS.length],
        "stroke-width": index < 3 ? 2.2 : 1.4, "class": "line" }));
      ends.push([sy(line.points[line.points.length - 1][1]), index]);
    });
    ends.sort((a, b) => a[0] - b[0]);
    let last = -Infinity;
    for (const [y, index] of ends) {
      const at = Math.max(y, last + 12);
      last = at;
      svg.appendChild(element("text", { x: W - right + 6, y: at + 4, "class": "name",
        fill: COLOURS[index % COLOURS.length] }, chart.lines[index].name));
    }
  }

  function drawTable(chart) {
    const head = document.querySelector("#table thead"), body = document.querySelector("#table tbody");
    head.replaceChildren(); body.replaceChildren();
    const row = document.createElement("tr");
    for (const title of chart.headers) { const th = document.createElement("th"); th.textContent = title; row.appendChild(th); }
    head.appendChild(row);
    let below = false;
    for (const entry of chart.rows) {
      if (entry.place === null && !below) {
        below = true;
        const line = document.createElement("tr"), cell = document.createElement("td");
        line.className = "line"; cell.colSpan = chart.headers.length; cell.textContent = chart.below_line;
        line.appendChild(cell); body.appendChild(line);
      }
      const tr = document.createElement("tr");
      if (entry.place === null) tr.className = "below";
      const place = document.createElement("td"); place.textContent = entry.place === null ? "" : entry.place;
      const name = document.createElement("td");
      if (entry.colour !== null) {
        const swatch = document.createElement("span");
        swatch.className = "swatch"; swatch.style.background = COLOURS[entry.colour % COLOURS.length];
        name.appendChild(swatch);
      }
      name.appendChild(document.createTextNode(entry.name));
      tr.append(place, name);
      for (const value of entry.cells) { const td = document.createElement("td"); td.textContent = value; tr.appendChild(td); }
      body.appendChild(tr);
    }
    const footer = document.getElementById("footer");
    footer.replaceChildren(...chart.footer.map((text) => { const p = document.createElement("p"); p.textContent = text; return p; }));
  }

  async function show(chat, stretch) {
    try {
      const data = await api(`api/league/${chat}?stretch=${encodeURIComponent(stretch)}`);
      document.getElementById("title").textContent = data.chart.title;
      document.getElementById("subtitle").textContent = data.chart.subtitle;
      const buttons = document.getElementById("stretches");
      buttons.replaceChildren(...data.buttons.map((b) => {
        const button = document.createElement("button");
        button.textContent = b.label; button.onclick = () => show(chat, b.stretch);
        return button;
      }));
      drawChart(data.chart);
      drawTable(data.chart);
      document.body.dataset.ready = "1";
    } catch (error) {
      say("😕 " + error.message);
    }
  }

  async function start() {
    const wanted = params.get("chat");
    const data = await api("api/league").catch((error) => { say("😕 " + error.message); return null; });
    if (!data) return;
    if (!data.groups.length) { say("还没有打完过一局。 You have not finished a hand in any group yet."); return; }
    const groups = document.getElementById("groups");
    groups.replaceChildren(...data.groups.map((g) => {
      const button = document.createElement("button");
      button.textContent = g.title || g.chat; button.onclick = () => show(g.chat, "cur");
      return button;
    }));
    // The group asked for when it is one of the person's, else their first.
    const chosen = data.groups.find((g) => String(g.chat) === wanted) || data.groups[0];
    return show(chosen.chat, "cur");
  }
  start();
})();
