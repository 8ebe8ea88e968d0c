// A queue's push subscriptions (docs/api.md, "Push subscriptions"): their state, pace and failures,
// pause, resume and delete, and a form creating one, whose secret is shown once.
import { el, api, may, status, confirmAction, renderIfChanged } from "/console/app.js";

/** The causes a delivery fails for, in the order the stats API names them. */
const CAUSES = ["throttled", "timeout", "connection", "status", "refused", "item"];

/** What a subscription's pace allows now: concurrency in use of its limit, the rate in use. */
function pace(sub, st) {
  const conc = st.concurrencyLimit + (st.concurrencyLimit < sub.maxConcurrent ? " of " + sub.maxConcurrent : "") + " concurrent";
  if (st.rateLimit === null || st.rateLimit === undefined) return conc;
  const rate = Number(st.rateLimit.toFixed(2));
  return conc + ", " + rate + (sub.maxPerSecond !== undefined && rate < sub.maxPerSecond ? " of " + sub.maxPerSecond : "") + "/s";
}

/** A subscription's limits per key: "tenant: 2 in flight, 5/s", or "none". */
function keyLimit(sub) {
  const k = sub.keyLimit;
  if (!k) return "none";
  const parts = [];
  if (k.maxConcurrent !== undefined && k.maxConcurrent !== null) parts.push(k.maxConcurrent + " in flight");
  if (k.maxPerSecond !== undefined && k.maxPerSecond !== null) parts.push(k.maxPerSecond + "/s");
  return k.attribute + ": " + parts.join(", ");
}

/** The failures by cause, the causes without any left out; "none" when there are none. */
function failures(st) {
  const parts = CAUSES.filter((c) => st.failures[c] > 0).map((c) => c + " " + st.failures[c]);
  return parts.length ? parts.join(", ") : "none";
}

/**
 * The panel of queue `name`'s subscriptions, appended to `parent`; answers the function the
 * queue's refresh calls every 2 seconds.
 */
export function subscriptionsPanel(parent, name) {
  const base = "/v1/queues/" + encodeURIComponent(name) + "/subscriptions";
  const admin = may("queue:admin", name);
  const rows = el("tbody", { id: "subscription-rows" });
  const none = el("p", { class: "muted", id: "no-subscriptions", hidden: true }, "No push subscription: the queue's messages wait to be received.");
  const secret = el("section", { class: "panel", id: "subscription-secret", hidden: true, "aria-labelledby": "subscription-secret-title" });
  parent.append(
    el("h2", {}, "Push subscriptions"),
    el("p", { class: "muted" }, "The server posts this queue's messages to each subscription's URL, at the pace it allows (docs/api.md, \"Push subscriptions\"). Figures are this server's since it started running the subscription."),
    el("div", { class: "scroll" }, el("table", { id: "subscriptions" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Name"),
        el("th", { scope: "col" }, "State"),
        el("th", { scope: "col", class: "wide-only" }, "URL"),
        el("th", { scope: "col" }, "Pace"),
        el("th", { scope: "col" }, "Per key"),
        el("th", { scope: "col", class: "num" }, "In flight"),
        el("th", { scope: "col", class: "num" }, "Delivered"),
        el("th", { scope: "col" }, "Failures"),
        el("th", { scope: "col", class: "num" }, "Dead-lettered"),
        el("th", { scope: "col" }, ""))),
      rows)),
    none,
    secret);

  const act = async (sub, what) => {
    const path = base + "/" + encodeURIComponent(sub);
    try {
      if (what === "delete") {
        if (!(await confirmAction("Delete subscription '" + sub + "' of queue '" + name + "'? Nothing more is delivered to its URL; deliveries in flight finish or expire.", "Delete " + sub))) return;
        await api("DELETE", path);
        status("Deleted subscription " + sub);
      } else {
        await api("POST", path + "/" + what);
        status((what === "pause" ? "Paused" : "Resumed") + " subscription " + sub);
      }
      refresh();
    } catch (e) { status("Subscription " + what + " refused: " + e.message, true); }
  };

  if (admin) {
    const f = (id, label, attrs = {}) => el("label", { for: "sub-" + id }, label, el("input", { id: "sub-" + id, ...attrs }));
    const form = el("form", { class: "grid", id: "subscription-form" },
      f("name", "Name", { required: true, pattern: "[A-Za-z0-9_\\-]{1,80}", placeholder: "legacy" }),
      el("label", { class: "wide", for: "sub-url" }, "URL (http or https)", el("input", { id: "sub-url", type: "url", required: true, placeholder: "https://legacy.example.com/tasks" })),
      f("maxConcurrent", "Max concurrent", { type: "number", min: "1", placeholder: "10" }),
      f("maxPerSecond", "Max per second", { type: "number", min: "0", step: "any", placeholder: "no limit" }),
      f("burst", "Burst", { type: "number", min: "1", placeholder: "1" }),
      f("batchSize", "Batch size", { type: "number", min: "1", placeholder: "1" }),
      el("label", { class: "wide", for: "sub-selector" }, "Selector (optional)", el("input", { id: "sub-selector", placeholder: "tenant = 'acme'" })),
      el("button", { type: "submit", class: "primary", id: "subscription-create" }, "Create subscription"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const v = (id) => form.querySelector("#sub-" + id).value.trim();
      const body = { name: v("name"), url: v("url") };
      for (const n of ["maxConcurrent", "burst", "batchSize"]) if (v(n)) body[n] = Number(v(n));
      if (v("maxPerSecond")) body.maxPerSecond = Number(v("maxPerSecond"));
      if (v("selector")) body.selector = v("selector");
      try {
        const s = await api("POST", base, body);
        form.reset();
        // the secret is shown here once: the server never shows it again (rotate to get a new one)
        const code = el("code", { id: "subscription-secret-value" }, s.secret);
        secret.hidden = false;
        secret.replaceChildren(
          el("h3", { id: "subscription-secret-title" }, "Secret of " + s.name),
          el("p", {}, "Each delivery is signed with this secret (X-Switchboard-Signature). Copy it now: it is shown this once."),
          el("p", {}, code),
          el("div", { class: "actions" }, el("button", { type: "button", id: "subscription-secret-done", onclick: () => { secret.hidden = true; secret.replaceChildren(); } }, "I have copied it")));
        status("Created subscription " + s.name);
        refresh();
      } catch (e) { status("Subscription refused: " + e.message, true); }
    });
    parent.append(el("h3", {}, "New subscription"), form);
  }

  async function refresh() {
    const list = (await api("GET", base)).subscriptions;
    const stats = await Promise.all(list.map((s) =>
      api("GET", base + "/" + encodeURIComponent(s.name) + "/stats").catch(() => null)));
    none.hidden = list.length > 0;
    const shown = list.map((s, i) => ({ s, st: stats[i] }));
    renderIfChanged(rows, JSON.stringify(shown), () => shown.map(({ s, st }) => {
      const state = st ? st.state : s.paused ? "paused" : "?";
      const actions = admin ? el("span", { class: "actions" },
        state === "paused"
          ? el("button", { type: "button", "data-resume": s.name, "aria-label": "Resume subscription " + s.name, onclick: () => act(s.name, "resume") }, "Resume")
          : el("button", { type: "button", "data-pause": s.name, "aria-label": "Pause subscription " + s.name, onclick: () => act(s.name, "pause") }, "Pause"),
        " ",
        el("button", { type: "button", class: "danger", "data-delete": s.name, "aria-label": "Delete subscription " + s.name, onclick: () => act(s.name, "delete") }, "Delete…")) : "";
      return el("tr", { "data-subscription": s.name },
        el("th", { scope: "row" }, s.name),
        el("td", { "data-field": "state" }, state),
        el("td", { class: "wide-only url" }, s.url),
        el("td", { "data-field": "pace" }, st ? pace(s, st) : "?"),
        el("td", { "data-field": "keyLimit" }, keyLimit(s)),
        el("td", { class: "num", "data-field": "inFlight" }, st ? st.inFlight : "?"),
        el("td", { class: "num", "data-field": "delivered" }, st ? st.delivered : "?"),
        el("td", { "data-field": "failures" }, st ? failures(st) : "?"),
        el("td", { class: "num", "data-field": "deadLettered" }, st ? st.deadLettered : "?"),
        el("td", {}, actions));
    }));
  }
  return refresh;
}
