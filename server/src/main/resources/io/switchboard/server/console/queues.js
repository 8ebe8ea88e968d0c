// Queues: the overview, one queue, and the dead letters. Everything through the native API.
import { el, api, may, status, confirmAction, age, renderIfChanged, idCell } from "/console/app.js";
import { subscriptionsPanel } from "/console/push.js";

const REFRESH_MS = 2000;
const HISTORY = 150; // samples kept per queue: 5 minutes at one every 2 s

/** Per queue: [{t, sent, received}] cumulative counters, oldest first (kept across views). */
const history = new Map();

function record(name, stats) {
  const h = history.get(name) || [];
  h.push({ t: Date.now(), sent: stats.counters.sent, received: stats.counters.received });
  if (h.length > HISTORY) h.shift();
  history.set(name, h);
}

/** Rates per second between samples of `field`. */
function rates(name, field) {
  const h = history.get(name) || [];
  const out = [];
  for (let i = 1; i < h.length; i++) {
    const dt = (h[i].t - h[i - 1].t) / 1000;
    out.push(dt > 0 ? Math.max(0, (h[i][field] - h[i - 1][field]) / dt) : 0);
  }
  return out;
}

/**
 * A small line chart on a canvas, in the text colour; labelled for screen readers. Without traffic
 * (no rate yet, or every rate 0) it says so in words: a flat line reads as a broken chart.
 */
function sparkline(values, label, width = 120, height = 28) {
  if (values.every((v) => v === 0)) {
    return el("span", { class: "muted spark-none", "aria-label": label + ": no traffic" }, "no traffic");
  }
  const c = el("canvas", { class: "spark", width: width * 2, height: height * 2, role: "img",
    "aria-label": label + ": " + (values.length ? values[values.length - 1].toFixed(1) + "/s now" : "no data yet") });
  c.style.width = width + "px";
  c.style.height = height + "px";
  const g = c.getContext("2d");
  const max = Math.max(1, ...values);
  g.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue("--accent") || "#1d4ed8";
  g.lineWidth = 2;
  g.beginPath();
  if (values.length < 2) values = [values[0], values[0]]; // one rate so far: a level line
  values.forEach((v, i) => {
    const x = values.length < 2 ? 0 : (i / (values.length - 1)) * (c.width - 2) + 1;
    const y = c.height - 2 - (v / max) * (c.height - 4);
    if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
  });
  g.stroke();
  return c;
}

function queueLink(name) {
  return el("a", { href: "#/queues/" + encodeURIComponent(name) }, name);
}

function every(ctx, f) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    try { await f(); } catch (e) { if (!stopped) status(e.message, true); }
    if (!stopped) timer = setTimeout(tick, REFRESH_MS);
  };
  ctx.onStop(() => { stopped = true; clearTimeout(timer); });
  tick();
}

/** Every queue, following the list's pages (configurations only). */
async function allQueues() {
  const queues = [];
  let cursor = "";
  do {
    const page = await api("GET", "/v1/queues" + (cursor ? "?cursor=" + encodeURIComponent(cursor) : ""));
    queues.push(...page.queues);
    cursor = page.nextCursor || "";
  } while (cursor);
  return queues;
}

/** The stats of `queues` (null for one that could not be read). */
function statsOf(queues) {
  return Promise.all(queues.map((q) =>
    api("GET", "/v1/queues/" + encodeURIComponent(q.name) + "/stats").catch(() => null)));
}

/** `queues` with their stats, and which of them dead-letter into which. */
async function withStats(queues) {
  const stats = await statsOf(queues);
  const sources = new Map();
  for (const q of queues) {
    const t = q.config.deadLetter?.target;
    if (t) sources.set(t, [...(sources.get(t) || []), q.name]);
  }
  return queues.map((q, i) => ({ ...q, stats: stats[i], sources: sources.get(q.name) || [] }));
}

// ---- overview ---------------------------------------------------------------------------

/** Queues shown per page of the overview: a page's stats are read every refresh, no more. */
const PAGE = 100;

export function overview(ctx) {
  const filter = el("input", { id: "queue-filter", type: "search", placeholder: "orders-" });
  const body = el("tbody", { id: "queue-rows" });
  const count = el("p", { class: "muted", id: "queue-count" });
  const first = el("button", { id: "queue-first", type: "button", hidden: true }, "First page");
  const next = el("button", { id: "queue-next", type: "button", hidden: true }, "Next page");
  ctx.main.append(
    el("h1", {}, "Queues"),
    el("div", { class: "toolbar" }, el("label", { for: "queue-filter" }, "Name starts with", filter)),
    el("div", { class: "scroll" }, el("table", { id: "queues" },
      el("caption", { class: "muted" }, "Live: refreshed every 2 seconds, " + PAGE + " queues a page in name order. Rates are messages per second over the last minutes."),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Queue"),
        el("th", { scope: "col", class: "num" }, "Available"),
        el("th", { scope: "col", class: "num" }, "Delayed"),
        el("th", { scope: "col", class: "num" }, "In flight"),
        el("th", { scope: "col", class: "num" }, "Oldest"),
        el("th", { scope: "col" }, "Dead letters"),
        el("th", { scope: "col", class: "wide-only" }, "Sends/s"),
        el("th", { scope: "col", class: "wide-only" }, "Receives/s"))),
      body)),
    el("div", { class: "toolbar" }, first, next),
    count);
  // the page shown: the name it starts after ("" the first), and the cursor of the one after it
  let from = "";
  let nextCursor = "";
  let pageNumber = 1;
  let last = [];
  const draw = () => {
    count.textContent = last.length + " queue" + (last.length === 1 ? "" : "s") + " on page " + pageNumber
      + (nextCursor ? "; more on the next" : "") + (filter.value.trim() ? " (names starting '" + filter.value.trim() + "')" : "");
    first.hidden = pageNumber === 1;
    next.hidden = !nextCursor;
    body.replaceChildren(...last.map((q) => {
      const s = q.stats || { available: "?", delayed: "?", inFlight: "?" };
      const dlq = q.config.deadLetter
        ? el("span", {}, "→ ", queueLink(q.config.deadLetter.target), " after " + q.config.deadLetter.maxReceiveCount)
        : q.sources.length ? el("span", {}, "DLQ of ", q.sources.join(", ")) : "–";
      return el("tr", { "data-queue": q.name },
        el("th", { scope: "row" }, queueLink(q.name)),
        el("td", { class: "num", "data-field": "available" }, s.available),
        el("td", { class: "num", "data-field": "delayed" }, s.delayed),
        el("td", { class: "num", "data-field": "inFlight" }, s.inFlight),
        el("td", { class: "num" }, age(s.oldestAgeMillis)),
        el("td", {}, dlq),
        el("td", { class: "wide-only" }, sparkline(rates(q.name, "sent"), "sends of " + q.name)),
        el("td", { class: "wide-only" }, sparkline(rates(q.name, "received"), "receives of " + q.name)));
    }));
  };
  let loads = 0; // a load answered after a newer one began (the filter typed on) is dropped
  const load = async () => {
    const mine = ++loads;
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (filter.value.trim()) params.set("prefix", filter.value.trim());
    if (from) params.set("cursor", from);
    const page = await api("GET", "/v1/queues?" + params);
    const shown = await withStats(page.queues);
    if (mine !== loads) return;
    nextCursor = page.nextCursor || "";
    last = shown;
    last.forEach((q) => q.stats && record(q.name, q.stats));
    draw();
  };
  const restart = () => { from = ""; pageNumber = 1; load().catch((e) => status(e.message, true)); };
  filter.addEventListener("input", restart);
  first.addEventListener("click", restart);
  next.addEventListener("click", () => {
    from = nextCursor;
    pageNumber++;
    load().catch((e) => status(e.message, true));
  });
  every(ctx, load);
}

// ---- one queue --------------------------------------------------------------------------

export function queueDetail(ctx, name) {
  const q = encodeURIComponent(name);
  const base = "/v1/queues/" + q;
  const cards = el("div", { class: "cards", id: "queue-stats" });
  const charts = el("div", { class: "toolbar", id: "queue-charts" });
  const config = el("div", { id: "queue-config" });
  const detail = el("section", { class: "panel", id: "message-detail", hidden: true, "aria-labelledby": "message-title" });
  ctx.main.append(
    el("p", {}, el("a", { href: "#/queues" }, "← All queues")),
    el("h1", {}, "Queue ", el("span", { id: "queue-name" }, name)),
    cards, charts);

  // browse
  const selector = el("input", { id: "browse-selector", placeholder: "e.g. language = 'es' AND priority > 2", size: 40 });
  const inflight = el("input", { id: "browse-invisible", type: "checkbox" });
  const rows = el("tbody", { id: "browse-rows" });
  const more = el("button", { type: "button", id: "browse-next", hidden: true }, "Next page");
  const first = el("button", { type: "button", id: "browse-first", hidden: true }, "First page");
  const pageInfo = el("span", { class: "muted", id: "browse-info" });
  let cursor = null;
  const browse = async (from) => {
    const params = new URLSearchParams({ limit: "20", includeInvisible: String(inflight.checked) });
    if (selector.value.trim()) params.set("selector", selector.value.trim());
    if (from) params.set("cursor", from);
    try {
      const page = await api("GET", base + "/messages?" + params);
      cursor = page.nextCursor || null;
      more.hidden = !cursor;
      first.hidden = !from;
      pageInfo.textContent = page.messages.length + " message(s) on this page" + (cursor ? "; more on the next" : "");
      rows.replaceChildren(...page.messages.map((m) => el("tr", { "data-id": m.id },
        el("td", { class: "id-cell" }, idCell(m.id, showMessage)),
        el("td", {}, m.state),
        el("td", { class: "num" }, m.priority),
        el("td", { class: "wide-only" }, m.groupId || ""),
        el("td", { class: "num" }, m.receiveCount),
        el("td", { class: "body-preview" }, m.body.length > 80 ? m.body.slice(0, 80) + "…" : m.body))));
    } catch (e) {
      status("Browse refused: " + e.message, true);
    }
  };
  more.addEventListener("click", () => browse(cursor));
  first.addEventListener("click", () => browse(null));
  const browseForm = el("form", { class: "toolbar", id: "browse-form", onsubmit: (ev) => { ev.preventDefault(); browse(null); } },
    el("label", { for: "browse-selector" }, "Selector", selector),
    el("label", { for: "browse-invisible", class: "inline" }, inflight, "include in flight and delayed"),
    el("button", { type: "submit", class: "primary" }, "Browse"));
  ctx.main.append(
    el("h2", {}, "Messages"),
    el("p", { class: "muted" }, "Browsing peeks: it leases nothing and changes nothing."),
    browseForm,
    el("div", { class: "scroll" }, el("table", { id: "browse" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Id"), el("th", { scope: "col" }, "State"),
        el("th", { scope: "col", class: "num" }, "Priority"), el("th", { scope: "col", class: "wide-only" }, "Group"),
        el("th", { scope: "col", class: "num" }, "Receives"), el("th", { scope: "col" }, "Body"))),
      rows)),
    el("div", { class: "toolbar" }, first, more, pageInfo),
    detail);

  // a message by id: also one that left the queue, while the queue keeps history
  const findId = el("input", { id: "find-id", placeholder: "message id", size: 40, required: true });
  const findForm = el("form", { class: "toolbar", id: "find-form", onsubmit: (ev) => { ev.preventDefault(); showMessage(findId.value.trim()); } },
    el("label", { for: "find-id" }, "Message id", findId),
    el("button", { type: "submit" }, "Show"));
  browseForm.after(findForm);

  async function showMessage(id) {
    try {
      const m = await api("GET", base + "/messages/" + encodeURIComponent(id));
      let pretty = m.body;
      try { pretty = JSON.stringify(JSON.parse(m.body), null, 2); } catch { /* not JSON: as it is */ }
      const kv = [["Id", m.id], ["State", m.state], ["Priority", m.priority], ["Group", m.groupId],
        ["Deduplication id", m.deduplicationId], ["Sequence", m.sequence], ["Receive count", m.receiveCount],
        ["Sent at", m.sentAt], ["First received at", m.firstReceivedAt], ["Visible at", m.visibleAt],
        ["Expires at", m.expiresAt], ["Dead-letter source", m.deadLetterSource]]
        .filter(([, v]) => v !== undefined && v !== null);
      detail.hidden = false;
      detail.replaceChildren(
        el("h2", { id: "message-title" }, "Message " + m.id),
        el("dl", { class: "kv" }, ...kv.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])),
        el("h3", {}, "Where it has been"),
        el("ol", { id: "message-history", class: "history" },
          ...stations(m, queueInfo).map(([what, when]) => el("li", { "data-state": what },
            el("span", { class: "station" }, what), when ? el("span", { class: "muted" }, " " + when) : ""))),
        el("p", { class: "muted" }, "The server keeps where a message stands and these times, not every change in between."
          + " A completed, failed or dead-lettered message stays readable by id while the queue keeps history"
          + " (history retention: " + (queueInfo && queueInfo.config.historyRetentionSeconds ? queueInfo.config.historyRetentionSeconds + " s" : "none") + ")."),
        el("h3", {}, "Attributes"),
        el("pre", { id: "message-attributes" }, JSON.stringify(m.attributes || {}, null, 2)),
        el("h3", {}, "Body"),
        el("pre", { id: "message-body" }, pretty),
        el("div", { class: "actions" }, el("button", { type: "button", onclick: () => { detail.hidden = true; } }, "Close")));
      detail.querySelector("button").focus();
    } catch (e) {
      status("Cannot read message: " + e.message, true);
    }
  }

  // send
  if (may("queue:send", name)) {
    const sendBody = el("textarea", { id: "send-body", required: true });
    const attrs = el("textarea", { id: "send-attributes", placeholder: '{"language": "es"}' });
    const prio = el("input", { id: "send-priority", type: "number", min: "0", value: "0" });
    const group = el("input", { id: "send-group" });
    const delay = el("input", { id: "send-delay", type: "number", min: "0", value: "0" });
    const form = el("form", { class: "grid", id: "send-form" },
      el("label", { class: "wide", for: "send-body" }, "Body", sendBody),
      el("label", { class: "wide", for: "send-attributes" }, "Attributes (JSON object, optional)", attrs),
      el("label", { for: "send-priority" }, "Priority", prio),
      el("label", { for: "send-group" }, "Group id (grouped queues)", group),
      el("label", { for: "send-delay" }, "Delay (seconds)", delay),
      el("button", { type: "submit", class: "primary", id: "send" }, "Send"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const msg = { body: sendBody.value };
      try {
        if (attrs.value.trim()) msg.attributes = JSON.parse(attrs.value);
      } catch {
        status("Attributes must be a JSON object, e.g. {\"language\": \"es\"}", true);
        return;
      }
      if (Number(prio.value)) msg.priority = Number(prio.value);
      if (group.value.trim()) msg.groupId = group.value.trim();
      if (Number(delay.value)) msg.delaySeconds = Number(delay.value);
      try {
        const r = await api("POST", base + "/messages", msg);
        status("Sent message " + r.id + (r.duplicate ? " (a duplicate: not sent again)" : ""));
        sendBody.value = "";
        refresh();
        browse(null);
      } catch (e) {
        status("Send refused: " + e.message, true);
      }
    });
    ctx.main.append(el("h2", {}, "Send a message"), form);
  }

  ctx.main.append(el("h2", {}, "Configuration"), config);
  const subscriptions = subscriptionsPanel(ctx.main, name);

  // purge, delete
  if (may("queue:admin", name)) {
    const purge = el("button", { type: "button", class: "danger", id: "purge" }, "Purge…");
    const del = el("button", { type: "button", class: "danger", id: "delete-queue" }, "Delete queue…");
    purge.addEventListener("click", async () => {
      if (!(await confirmAction("Purge queue '" + name + "'? Every message in it is deleted; this cannot be undone.", "Purge " + name))) return;
      try {
        const r = await api("POST", base + "/purge");
        status("Purged " + r.purged + " message(s) from " + name);
        refresh();
        browse(null);
      } catch (e) { status("Purge refused: " + e.message, true); }
    });
    del.addEventListener("click", async () => {
      if (!(await confirmAction("Delete queue '" + name + "' and every message in it? This cannot be undone.", "Delete " + name))) return;
      try {
        await api("DELETE", base);
        location.hash = "#/queues";
        status("Deleted queue " + name);
      } catch (e) { status("Delete refused: " + e.message, true); }
    });
    ctx.main.append(el("h2", {}, "Danger zone"), el("div", { class: "toolbar" }, purge, del));
  }

  const editable = [["visibilityTimeoutSeconds", "Visibility timeout (s)"], ["delaySeconds", "Delay (s)"],
    ["receiveWaitSeconds", "Receive wait (s)"], ["retentionSeconds", "Retention (s)"]];
  let queueInfo = null;
  async function refresh() {
    const info = await api("GET", base);
    queueInfo = info;
    subscriptions().catch((e) => status("Cannot read the push subscriptions: " + e.message, true));
    const s = info.stats;
    record(name, s);
    renderIfChanged(cards, JSON.stringify([s.available, s.delayed, s.inFlight, s.depth, s.oldestAgeMillis]), () =>
      [["available", "Available", s.available], ["delayed", "Delayed", s.delayed], ["inFlight", "In flight", s.inFlight],
        ["depth", "Depth", s.depth], ["oldest", "Oldest", age(s.oldestAgeMillis)]]
        .map(([id, label, v]) => el("div", { class: "card" }, el("div", { class: "muted" }, label), el("div", { class: "big", id: "stat-" + id }, v))));
    charts.replaceChildren(
      el("div", {}, el("div", { class: "muted" }, "Sends/s"), sparkline(rates(name, "sent"), "sends of " + name, 300, 60)),
      el("div", {}, el("div", { class: "muted" }, "Receives/s"), sparkline(rates(name, "received"), "receives of " + name, 300, 60)));
    renderIfChanged(config, JSON.stringify(info.config), () => {
      const c = info.config;
      const items = [["Order", c.order], ["Grouped", info.grouped], ["Dead letters", c.deadLetter ? c.deadLetter.target + " after " + c.deadLetter.maxReceiveCount + " receives" : "none"],
        ["Max depth", c.maxDepth ?? "unbounded"], ["Overflow", c.overflow], ["On expiry", c.onExpire],
        ["Max message size", c.maxMessageSizeBytes + " bytes"], ["Indexed attributes", c.indexedAttributes.join(", ") || "none"],
        ["Key limit", c.keyLimit ? c.keyLimit.maxConcurrent + " in flight per message group" : "none"],
        ["Created", info.createdAt]];
      const out = [el("dl", { class: "kv" }, ...items.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]))];
      if (may("queue:admin", name)) {
        const inputs = editable.map(([f, label]) => el("label", { for: "cfg-" + f }, label,
          el("input", { id: "cfg-" + f, type: "number", min: "0", value: c[f] })));
        const form = el("form", { class: "grid", id: "config-form" }, ...inputs, el("button", { type: "submit" }, "Save configuration"));
        form.addEventListener("submit", async (ev) => {
          ev.preventDefault();
          const change = {};
          for (const [f] of editable) change[f] = Number(form.querySelector("#cfg-" + f).value);
          try {
            await api("PATCH", base, change);
            status("Configuration of " + name + " saved");
            refresh();
          } catch (e) { status("Configuration refused: " + e.message, true); }
        });
        out.push(form);
      }
      return out;
    });
  }
  every(ctx, refresh);
  browse(null);
}

/**
 * What is known of where message m has been, oldest first: [what, when] pairs, from what the
 * server keeps (when it was sent and first received, how often received, the queue it was
 * dead-lettered from, where it stands now).
 */
export function stations(m, info) {
  const out = [["Sent", m.sentAt]];
  if (m.deadLetterSource) out.push(["Dead-lettered from " + m.deadLetterSource, null]);
  if (m.firstReceivedAt) {
    out.push(["First received", m.firstReceivedAt]);
    if (m.receiveCount > 1) out.push(["Received " + m.receiveCount + " times in all", null]);
  }
  const dlq = info && info.config.deadLetter ? info.config.deadLetter.target : null;
  switch (m.state) {
    case "delayed": out.push(["Delayed", "available from " + m.visibleAt]); break;
    case "available": out.push([m.receiveCount > 0 ? "Available again (released or its lease ran out)" : "Available", null]); break;
    case "in_flight": out.push(["In flight", "leased until " + m.visibleAt]); break;
    case "completed": out.push(["Completed (acknowledged)", null]); break;
    case "failed": out.push(["Failed (its consumer gave up)", null]); break;
    case "dead_lettered": out.push(["Dead-lettered" + (dlq ? " to " + dlq : ""), null]); break;
    default: out.push([String(m.state), null]);
  }
  return out;
}

// ---- dead letters -----------------------------------------------------------------------

export function deadLetters(ctx) {
  const list = el("div", { id: "dlqs" });
  ctx.main.append(el("h1", {}, "Dead letters"),
    el("p", { class: "muted" }, "Each queue another queue dead-letters into, with its messages and their source. Restore sends one back; a redrive moves them all back at a rate."),
    list);
  const sections = new Map();
  // which queues are dead-letter queues: every queue's configuration, read again every 30 s (a
  // server with many queues lists them in many pages); their contents every refresh
  let targets = [];
  let listedAt = 0;
  every(ctx, async () => {
    if (Date.now() - listedAt > 30000) {
      const all = await allQueues();
      const sources = new Map();
      for (const q of all) {
        const t = q.config.deadLetter?.target;
        if (t) sources.set(t, [...(sources.get(t) || []), q.name]);
      }
      targets = all.filter((q) => sources.has(q.name)).map((q) => ({ ...q, sources: sources.get(q.name) }));
      listedAt = Date.now();
    }
    const stats = await statsOf(targets);
    const dlqs = targets.map((q, i) => ({ ...q, stats: stats[i] }));
    if (dlqs.length === 0) {
      list.replaceChildren(el("p", { id: "no-dlq" }, "No queue has a dead-letter queue."));
      sections.clear();
      return;
    }
    list.querySelector("#no-dlq")?.remove();
    for (const q of dlqs) {
      if (!sections.has(q.name)) {
        const s = dlqSection(q.name);
        sections.set(q.name, s);
        list.append(s.root);
      }
      await sections.get(q.name).refresh(q);
    }
  });
}

function dlqSection(name) {
  const base = "/v1/queues/" + encodeURIComponent(name);
  const id = "dlq-" + name.replace(/[^A-Za-z0-9_-]/g, "_");
  const head = el("p", { class: "muted" });
  const rows = el("tbody", { "data-dlq": name });
  const tasks = el("tbody", { "data-tasks": name });
  const root = el("section", { class: "panel", id, "aria-labelledby": id + "-title" },
    el("h2", { id: id + "-title" }, "Dead-letter queue ", el("a", { href: "#/queues/" + encodeURIComponent(name) }, name)),
    head,
    el("div", { class: "scroll" }, el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Id"), el("th", { scope: "col" }, "Source"),
        el("th", { scope: "col", class: "num" }, "Receives"), el("th", { scope: "col" }, "Body"), el("th", { scope: "col" }, ""))),
      rows)));
  const admin = may("queue:admin", name);
  if (admin) {
    const rate = el("input", { id: id + "-rate", type: "number", min: "1", placeholder: "unlimited" });
    const form = el("form", { class: "toolbar" },
      el("label", { for: id + "-rate" }, "Redrive rate (messages/s)", rate),
      el("button", { type: "submit", class: "primary", "data-redrive": name }, "Start redrive"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = rate.value ? { maxPerSecond: Number(rate.value) } : {};
      try {
        const t = await api("POST", base + "/redrives", body);
        status("Redrive " + t.id + " of " + name + " started");
      } catch (e) { status("Redrive refused: " + e.message, true); }
    });
    root.append(form);
  }
  root.append(el("h3", {}, "Redrives"), el("div", { class: "scroll" }, el("table", {},
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Task"), el("th", { scope: "col" }, "Status"),
      el("th", { scope: "col" }, "Progress"), el("th", { scope: "col" }, "Rate"), el("th", { scope: "col" }, ""))),
    tasks)));
  const refresh = async (q) => {
    head.textContent = "Sources: " + q.sources.join(", ") + " · " + (q.stats ? q.stats.available + " available" : "");
    const page = await api("GET", base + "/messages?limit=50");
    renderIfChanged(rows, JSON.stringify(page.messages.map((m) => m.id)), () => page.messages.map((m) =>
      el("tr", { "data-id": m.id },
        el("td", { class: "id-cell" }, idCell(m.id)),
        el("td", { "data-field": "source" }, m.deadLetterSource || "?"),
        el("td", { class: "num" }, m.receiveCount),
        el("td", {}, m.body.length > 60 ? m.body.slice(0, 60) + "…" : m.body),
        el("td", {}, admin ? el("button", { type: "button", "aria-label": "Restore message " + m.id + " to " + (m.deadLetterSource || "its source"),
          onclick: async () => {
            try {
              await api("POST", base + "/messages/" + encodeURIComponent(m.id) + "/restore");
              status("Restored message " + m.id + " to " + m.deadLetterSource);
            } catch (e) { status("Restore refused: " + e.message, true); }
          } }, "Restore") : ""))));
    const t = await api("GET", base + "/redrives");
    renderIfChanged(tasks, JSON.stringify(t.tasks), () => t.tasks.map((task) =>
      el("tr", { "data-task": task.id },
        el("td", {}, task.id),
        el("td", { "data-field": "status" }, task.status + (task.failureReason ? ": " + task.failureReason : "")),
        el("td", {}, el("progress", { max: Math.max(1, task.toMove), value: task.moved, "aria-label": "moved" }), " " + task.moved + " / " + task.toMove),
        el("td", {}, task.maxPerSecond ? task.maxPerSecond + "/s" : "unlimited"),
        el("td", {}, task.status === "running" && may("queue:admin", "*")
          ? el("button", { type: "button", class: "danger", onclick: async () => {
            try { await api("POST", "/v1/redrives/" + encodeURIComponent(task.id) + "/cancel"); status("Redrive " + task.id + " cancelled"); } catch (e) { status("Cancel refused: " + e.message, true); }
          } }, "Cancel") : ""))));
  };
  return { root, refresh };
}
