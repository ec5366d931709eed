// Who the page asks as: Telegram's initData inside Telegram; in `chaodipi play`, the local sign-in.
// The local secret comes in the address's fragment (#local=…), which a browser never sends to a server;
// the page moves it into sessionStorage at once and takes it out of the address bar.  Nothing else here.
"use strict";

window.chaodipiSignIn = (function () {
  const tg = window.Telegram && window.Telegram.WebApp;
  if (tg && tg.initData) return { tg: tg, header: "tma " + tg.initData, local: false };
  const KEY = "chaodipi-local";
  const found = /^#local=([A-Za-z0-9_-]{16,128})$/.exec(location.hash);
  if (found) {
    sessionStorage.setItem(KEY, found[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const secret = sessionStorage.getItem(KEY);
  return secret ? { tg: null, header: "local " + secret, local: true } : null;
})();
