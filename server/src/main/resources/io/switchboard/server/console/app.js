// The console's shell: the API client, who the caller is, the views by URL fragment.
import { overview, queueDetail, deadLetters } from "/console/queues.js";
import { wallboard } from "/console/wallboard.js";

const state = { me: null, csrf: null, stop: null };

/** A DOM element: el("td", {class: "num"}, "3"). Text is always text, never HTML. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

/** Calls the native API: JSON in and out, the session's CSRF token on what changes state. */
export async function api(method, path, body, headers = {}) {
  const h = { Accept: "application/json", ...headers };
  if (method !== "GET" && method !== "HEAD") {
    if (state.csrf) h["X-CSRF-Token"] = state.csrf;
    if (body === undefined && method !== "DELETE") body = {};
  }
  if (body !== undefined) h["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method, headers: h, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith("/console/session")) showSignIn();
    throw new ApiError(res.status, json?.code ?? "HTTP_" + res.status, json?.message ?? text);
  }
  return json;
}

/**
 * Whether the caller may do `action` on `resource` (a queue name, "*" for every queue, "default"
 * for the routing workspace), as the server decides it (docs/security.md): what it may not do is
 * not offered.
 */
export function may(action, resource) {
  const me = state.me;
  if (!me || me.keyless) return true;
  return (me.grants || []).some((g) =>
    (g.actions.includes("admin") || g.actions.includes(action)
      || (action === "routing:agent" && g.actions.includes("routing:supervisor")))
    && (resource === undefined || glob(g.resource, resource)));
}

/** Whether the caller may do `action` on some resource (for what to show at all). */
export function mayAny(action) {
  const me = state.me;
  if (!me || me.keyless) return true;
  return (me.grants || []).some((g) => g.actions.includes("admin") || g.actions.includes(action));
}

function glob(pattern, name) {
  if (pattern === "*") return true;
  const re = new RegExp("^" + pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$");
  return re.test(name);
}

/**
 * A message id in a table: its last characters (ids of one queue share their beginning and differ
 * at the end), the whole id as the tooltip, and a button copying the whole id. `onShow`, if given,
 * makes the short id a link-like button showing the message.
 */
export function idCell(id, onShow) {
  const short = id.length > 12 ? "…" + id.slice(-8) : id;
  const label = onShow
    ? el("button", { type: "button", class: "linkish", title: id, onclick: () => onShow(id), "aria-label": "Show message " + id }, short)
    : el("code", { title: id }, short);
  const copy = el("button", { type: "button", class: "copy", "data-copy": id, "aria-label": "Copy message id " + id, title: "Copy the whole id" }, "Copy");
  copy.addEventListener("click", () => copyText(id).then(
    () => status("Copied message id " + id),
    () => status("Cannot copy here; the id is " + id, true)));
  return el("span", { class: "id" }, label, " ", copy);
}

/** Puts `text` on the clipboard (the Clipboard API where the page may use it, else a selection). */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const t = el("textarea", { readonly: true, class: "offscreen" });
  t.value = text;
  document.body.append(t);
  t.select();
  const done = document.execCommand("copy");
  t.remove();
  if (!done) throw new Error("copy refused");
}

/** Replaces `target`'s children only when `key` changed (so a refresh keeps focus and clicks). */
export function renderIfChanged(target, key, build) {
  if (target.dataset.key === key) return;
  target.dataset.key = key;
  target.replaceChildren(...build());
}

/** A line in the status bar (polite live region); errors in red. */
export function status(text, error = false) {
  const s = document.getElementById("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!error);
}

/** Asks before something that cannot be undone; resolves true if confirmed. */
export function confirmAction(text, okLabel) {
  const d = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = okLabel;
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "ok"), { once: true });
    d.returnValue = "";
    d.showModal();
    document.getElementById("confirm-cancel").focus();
  });
}

/** A duration in ms, short: 850 ms, 12 s, 3 min, 2 h. */
export function age(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return ms + " ms";
  const s = ms / 1000;
  if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + Math.floor(s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}

function showSignIn(message) {
  stopView();
  document.getElementById("who").textContent = "";
  document.getElementById("sign-out").hidden = true;
  document.getElementById("views").hidden = true; // its views need a session: not offered before
  const main = document.getElementById("main");
  const err = el("p", { id: "signin-error", class: "bad", role: "alert" }, message || "");
  const form = el("form", { "aria-labelledby": "signin-title" },
    el("label", {}, "Access key id", el("input", { id: "key-id", name: "username", autocomplete: "username", required: true })),
    el("label", {}, "Secret access key", el("input", { id: "key-secret", name: "password", type: "password", autocomplete: "current-password", required: true })),
    err,
    el("button", { class: "primary", type: "submit", id: "sign-in" }, "Sign in"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const id = form.querySelector("#key-id").value.trim();
    const secretInput = form.querySelector("#key-secret");
    const basic = "Basic " + btoa(unescape(encodeURIComponent(id + ":" + secretInput.value)));
    secretInput.value = ""; // the secret is not kept: the session cookie stands for it
    try {
      const me = await api("POST", "/console/session", {}, { Authorization: basic });
      signedIn(me);
      route();
    } catch (e) {
      err.textContent = e.status === 401 ? "Sign-in refused: unknown access key id or wrong secret." : e.message;
    }
  });
  main.replaceChildren(el("section", { class: "signin panel" },
    el("h1", { id: "signin-title" }, "Sign in"),
    el("p", { class: "muted" }, "This server checks access keys. Sign in with an access key id and its secret; the browser keeps only a session cookie."),
    form));
  form.querySelector("#key-id").focus();
}

function signedIn(me) {
  state.me = me;
  state.csrf = me.csrfToken || null;
  const who = document.getElementById("who");
  who.textContent = me.keyless ? "keyless (loopback development mode)" : "signed in as " + me.accessKeyId + (me.name ? " (" + me.name + ")" : "");
  document.getElementById("sign-out").hidden = me.keyless || !me.csrfToken;
  document.getElementById("views").hidden = false;
}

function stopView() {
  if (state.stop) {
    try { state.stop(); } catch { /* already stopped */ }
  }
  state.stop = null;
}

/**
 * Shows the view the fragment names: #/queues, #/queues/NAME, #/dead-letters, #/wallboard (the
 * workspace default), #/wallboard/WORKSPACE.
 */
function route() {
  if (!state.me) return;
  stopView();
  status("");
  const main = document.getElementById("main");
  main.replaceChildren();
  const parts = (location.hash || "#/queues").slice(2).split("/").map(decodeURIComponent);
  const view = parts[0] || "queues";
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const ctx = { main, onStop: (f) => { state.stop = f; } };
  if (view === "queues" && parts[1]) queueDetail(ctx, parts[1]);
  else if (view === "dead-letters") deadLetters(ctx);
  else if (view === "wallboard") wallboard(ctx, parts[1] || "default");
  else overview(ctx);
}

/**
 * Copies each table column's heading onto its cells (data-label), which the narrow layout shows
 * before each cell once the columns stack (console.css). Watches the page, so rows drawn later are
 * labelled too.
 */
function labelCells(root) {
  for (const table of root.querySelectorAll("table")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (!heads.length) continue;
    for (const tr of table.querySelectorAll("tbody tr")) {
      [...tr.children].forEach((cell, i) => {
        if (cell.tagName === "TD" && heads[i] && cell.dataset.label !== heads[i]) cell.dataset.label = heads[i];
      });
    }
  }
}

async function start() {
  const main = document.getElementById("main");
  new MutationObserver(() => labelCells(main)).observe(main, { childList: true, subtree: true });
  document.getElementById("sign-out").addEventListener("click", async () => {
    try { await api("DELETE", "/console/session"); } catch { /* signed out anyway */ }
    state.me = null;
    state.csrf = null;
    showSignIn("Signed out.");
  });
  window.addEventListener("hashchange", route);
  try {
    const me = await api("GET", "/console/session");
    if (me.keyless || me.accessKeyId) {
      signedIn(me);
      route();
    } else {
      showSignIn();
    }
  } catch (e) {
    if (e.status !== 401) status("Cannot reach the server: " + e.message, true);
  }
}

start();
