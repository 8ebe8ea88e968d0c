// The routing wallboard: agents, waiting contacts and per-group figures, live from the event
// stream (GET /v1/routing/events), which the browser resumes with Last-Event-ID after a break.
import { el, api, may, status, confirmAction, age, renderIfChanged } from "/console/app.js";

const TYPES = ["agent.created", "agent.updated", "agent.presence", "agent.removed", "contact.queued",
  "contact.escalated", "reservation.offered", "reservation.accepted", "reservation.rejected",
  "reservation.timed_out", "reservation.cancelled", "contact.wrap_up", "contact.completed",
  "contact.abandoned", "contact.timed_out", "contact.updated", "contact.cancelled",
  "contact.transferred", "missed"];

/** Service level colour: at or above 80 % good, 60 % warning, below bad. */
function levelClass(v) {
  if (v === undefined || v === null) return "muted";
  return v >= 0.8 ? "good" : v >= 0.6 ? "warn" : "bad";
}

function pct(v) {
  return v === undefined || v === null ? "–" : (v * 100).toFixed(0) + " %";
}

export function wallboard(ctx) {
  const supervisor = may("routing:supervisor", "default");
  if (!supervisor) {
    ctx.main.append(el("h1", {}, "Routing wallboard"),
      el("p", { id: "wallboard-refused" }, "The wallboard needs routing:supervisor on the workspace; this access key does not have it."));
    return;
  }
  const live = el("span", { id: "live", class: "muted" }, "connecting…");
  const cards = el("div", { class: "cards", id: "overall" });
  const groups = el("tbody", { id: "group-rows" });
  const agents = el("tbody", { id: "agent-rows" });
  const waiting = el("tbody", { id: "contact-rows" });
  ctx.main.append(
    el("h1", {}, "Routing wallboard ", live),
    cards,
    el("h2", {}, "Requirement groups"),
    el("div", { class: "scroll" }, el("table", { id: "groups" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Channel"), el("th", { scope: "col" }, "Requirements"),
        el("th", { scope: "col", class: "num" }, "Waiting"), el("th", { scope: "col", class: "num" }, "Longest wait"),
        el("th", { scope: "col", class: "num" }, "Service level"), el("th", { scope: "col", class: "num" }, "ASA"),
        el("th", { scope: "col", class: "num" }, "Abandoned"))),
      groups)),
    el("div", { class: "columns" },
      el("section", { "aria-labelledby": "agents-title" }, el("h2", { id: "agents-title" }, "Agents"),
        el("div", { class: "scroll" }, el("table", { id: "agents" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Agent"), el("th", { scope: "col" }, "Presence"),
            el("th", { scope: "col" }, "Load"), el("th", { scope: "col" }, "Contacts"))),
          agents))),
      el("section", { "aria-labelledby": "waiting-title" }, el("h2", { id: "waiting-title" }, "Waiting contacts"),
        el("div", { class: "scroll" }, el("table", { id: "contacts" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Contact"), el("th", { scope: "col" }, "Age"),
            el("th", { scope: "col", class: "num" }, "Priority"), el("th", { scope: "col" }, "Requirements"),
            el("th", { scope: "col" }, ""))),
          waiting)))));

  /** agent id → contact ids assigned to it, from the events (replayed from the start). */
  const current = new Map();
  const track = (e) => {
    if (e.type === "reservation.accepted") {
      current.set(e.agentId, new Set([...(current.get(e.agentId) || []), e.contactId]));
    } else if (e.type === "contact.completed" || e.type === "contact.wrap_up") {
      current.get(e.agentId)?.delete(e.contactId);
    } else if (e.type === "contact.transferred") {
      current.get(e.fromAgentId)?.delete(e.contactId);
    }
  };

  let stopped = false;
  let pending = null;
  let drawing = false;
  let dirty = false;
  let lastDraw = 0;
  let lastContacts = [];
  const draw = async () => {
    try {
      const [a, c, s] = await Promise.all([api("GET", "/v1/routing/agents?limit=500"),
        api("GET", "/v1/routing/contacts?limit=500"), api("GET", "/v1/routing/stats")]);
      const o = s.overall;
      renderIfChanged(cards, JSON.stringify(s.overall) + JSON.stringify(s.agentsByPresence), () => [
        ["waiting", "Waiting", o.waiting, ""], ["longest", "Longest wait", age(o.longestWaitMillis), ""],
        ["service-level", "Service level", pct(o.serviceLevel), levelClass(o.serviceLevel)],
        ["asa", "Avg. speed of answer", age(o.averageSpeedOfAnswerMillis), ""],
        ["answered", "Answered", o.answered, ""], ["abandoned", "Abandoned", o.abandoned + " (" + pct(o.abandonmentRate) + ")", ""],
        ...Object.entries(s.agentsByPresence).map(([k, v]) => ["presence-" + k, "Agents " + k, v, ""])]
        .map(([id, label, v, cls]) => el("div", { class: "card" }, el("div", { class: "muted" }, label),
          el("div", { class: "big " + cls, id: "wb-" + id }, v))));
      renderIfChanged(groups, JSON.stringify(s.groups), () => s.groups.map((g) => el("tr", {},
        el("td", {}, g.channel), el("td", {}, g.requirements || "any agent"),
        el("td", { class: "num" }, g.contacts.waiting), el("td", { class: "num" }, age(g.contacts.longestWaitMillis)),
        el("td", { class: "num " + levelClass(g.contacts.serviceLevel) }, pct(g.contacts.serviceLevel)),
        el("td", { class: "num" }, age(g.contacts.averageSpeedOfAnswerMillis)),
        el("td", { class: "num" }, g.contacts.abandoned + " (" + pct(g.contacts.abandonmentRate) + ")"))));
      const assigned = a.agents.map((ag) => [...(current.get(ag.id) || [])]);
      renderIfChanged(agents, JSON.stringify(a.agents) + JSON.stringify(assigned), () => a.agents.map((ag) => {
        const load = Object.entries(ag.capacity).map(([ch, cap]) => ch + " " + (ag.load[ch] || 0) + "/" + cap).join(", ");
        const presence = supervisor ? presenceSelect(ag) : ag.presence;
        return el("tr", { "data-agent": ag.id },
          el("th", { scope: "row" }, ag.id),
          el("td", { "data-field": "presence" }, presence, ag.inWrapUp ? " · wrap-up" : ""),
          el("td", { "data-field": "load" }, load),
          el("td", { "data-field": "contacts" }, [...(current.get(ag.id) || [])].join(", ") || "–"));
      }));
      lastContacts = c.contacts;
      drawWaiting();
    } catch (e) {
      status(e.message, true);
    }
  };
  const drawWaiting = () => {
    const now = Date.now();
    renderIfChanged(waiting, JSON.stringify(lastContacts), () => lastContacts.map((ct) => el("tr", { "data-contact": ct.id },
      el("th", { scope: "row" }, ct.id + " (" + ct.channel + ")"),
      el("td", { "data-since": ct.createdAt }, ""),
      el("td", { class: "num" }, supervisor ? priorityForm(ct) : ct.priority),
      el("td", {}, ct.requirements || "any agent"),
      el("td", {}, supervisor ? el("button", { type: "button", class: "danger", "aria-label": "Abandon contact " + ct.id,
        onclick: async () => {
          if (!(await confirmAction("Abandon contact '" + ct.id + "'? It leaves the line.", "Abandon " + ct.id))) return;
          try { await api("POST", "/v1/routing/contacts/" + encodeURIComponent(ct.id) + "/abandon"); } catch (e) { status("Abandon refused: " + e.message, true); }
        } }, "Abandon") : ""))));
    for (const td of waiting.querySelectorAll("td[data-since]")) td.textContent = age(now - Date.parse(td.dataset.since));
  };

  // Reprioritise: PATCH the contact's priority (-1000..1000); it keeps its arrival time, so it
  // moves ahead of (or behind) the contacts of the priorities it passes, by arrival among equals.
  const priorityForm = (ct) => {
    const input = el("input", { type: "number", min: "-1000", max: "1000", step: "1", value: String(ct.priority),
      class: "priority", "aria-label": "Priority of contact " + ct.id, "data-priority": ct.id });
    const form = el("form", { class: "inline", "data-reprioritise": ct.id },
      input, el("button", { type: "submit", "aria-label": "Reprioritise contact " + ct.id }, "Set"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const priority = Number(input.value);
      if (!Number.isInteger(priority) || priority < -1000 || priority > 1000) {
        status("Priority must be a whole number from -1000 to 1000, got '" + input.value + "'", true);
        return;
      }
      try {
        await api("PATCH", "/v1/routing/contacts/" + encodeURIComponent(ct.id), { priority });
        status("Contact " + ct.id + " now has priority " + priority);
      } catch (e) { status("Reprioritise refused: " + e.message, true); }
    });
    return form;
  };

  const presenceSelect = (ag) => {
    const s = el("select", { "aria-label": "Presence of agent " + ag.id, "data-presence": ag.id },
      ...["available", "away", "offline"].map((p) => el("option", { value: p, selected: p === ag.presence }, p)));
    s.addEventListener("change", async () => {
      try {
        await api("PUT", "/v1/routing/agents/" + encodeURIComponent(ag.id) + "/presence", { presence: s.value });
        status("Agent " + ag.id + " is now " + s.value);
      } catch (e) { status("Presence refused: " + e.message, true); }
    });
    return s;
  };
  // At most one redraw a second, whatever the rate of events: the console's cost stays bounded.
  const run = async () => {
    pending = null;
    if (stopped) return;
    drawing = true;
    dirty = false;
    lastDraw = Date.now();
    await draw();
    drawing = false;
    if (dirty) soon();
  };
  const soon = () => {
    dirty = true;
    if (!drawing && !pending && !stopped) pending = setTimeout(run, Math.max(0, lastDraw + 1000 - Date.now()));
  };

  // The browser reconnects by itself with Last-Event-ID after a dropped stream; a refused
  // reconnection (the server still starting: 503) closes the source, so open a new one, resuming
  // after the last event seen.
  let source = null;
  let lastId = null;
  let retry = null;
  const onEvent = (ev) => {
    live.textContent = "live";
    live.className = "good";
    if (ev.lastEventId) lastId = ev.lastEventId;
    live.dataset.lastEvent = lastId || "";
    try { track(JSON.parse(ev.data)); } catch { /* a missed marker: redraw anyway */ }
    soon();
  };
  const connect = () => {
    retry = null;
    if (stopped) return;
    source = new EventSource("/v1/routing/events" + (lastId ? "?after=" + encodeURIComponent(lastId) : ""));
    TYPES.forEach((t) => source.addEventListener(t, onEvent));
    source.onopen = () => { live.textContent = "live"; live.className = "good"; soon(); };
    source.onerror = () => {
      live.textContent = "reconnecting…";
      live.className = "warn";
      if (source.readyState === EventSource.CLOSED && !retry) retry = setTimeout(connect, 2000);
    };
  };
  connect();
  const ticker = setInterval(drawWaiting, 1000);
  soon();
  ctx.onStop(() => { stopped = true; source?.close(); clearInterval(ticker); clearTimeout(pending); clearTimeout(retry); });
  draw();
}
