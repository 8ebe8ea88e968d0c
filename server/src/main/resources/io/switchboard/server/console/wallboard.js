// The routing wallboard of one workspace: agents, waiting contacts and per-group (or per task
// queue) figures. It loads a snapshot through the API, then follows the workspace's event stream
// from now (GET .../events?from=now: no history replayed), which the browser resumes with
// Last-Event-ID after a break; events only trigger a redraw from the API.
import { el, api, may, status, confirmAction, age, renderIfChanged } from "/console/app.js";

const TYPES = ["agent.created", "agent.updated", "agent.presence", "agent.removed", "contact.queued",
  "contact.escalated", "reservation.offered", "reservation.accepted", "reservation.rejected",
  "reservation.timed_out", "reservation.cancelled", "contact.wrap_up", "contact.completed",
  "contact.abandoned", "contact.timed_out", "contact.updated", "contact.cancelled",
  "contact.transferred", "missed", "start"];

const DEFAULT = "default";
/** Rows drawn at first in the agents and waiting tables: laying out 1,000 is what made the first draw slow. */
const ROWS = 100;
const PRESENCES = [{ name: "available", available: true }, { name: "away", available: false },
  { name: "offline", available: false }];

/** The API prefix of a workspace: default keeps /v1/routing. */
function base(ws) {
  return ws === DEFAULT ? "/v1/routing" : "/v1/workspaces/" + encodeURIComponent(ws);
}

/**
 * The task queue a requirement group belongs to, and the contacts' own requirements beyond the
 * queue's: a contact routed through a queue waits under "(worker expression) AND (own)", or the
 * expression alone (docs/routing.md). A queue without a worker expression cannot be told apart.
 */
function queueOf(queues, requirements) {
  for (const q of queues) {
    const e = q.workerExpression;
    if (!e) continue;
    if (requirements === e) return [q.name, ""];
    const prefix = "(" + e + ") AND (";
    if (requirements && requirements.startsWith(prefix) && requirements.endsWith(")")) {
      return [q.name, requirements.slice(prefix.length, -1)];
    }
  }
  return [null, requirements || ""];
}

/** Service level colour: at or above 80 % good, 60 % warning, below bad. */
function levelClass(v) {
  if (v === undefined || v === null) return "muted";
  return v >= 0.8 ? "good" : v >= 0.6 ? "warn" : "bad";
}

function pct(v) {
  return v === undefined || v === null ? "–" : (v * 100).toFixed(0) + " %";
}

const SERVER_DEFAULT = "server default";

function seconds(v) {
  return v === undefined || v === null ? null : v + " s";
}

/**
 * The workspace's settings as label, value and the setting's API name (GET /v1/workspaces/{ws},
 * docs/api.md, "Workspaces"): a setting the workspace leaves to the server says "server default",
 * an absent reject activity that agents stay where they are, an absent timeout activity the one
 * the workspace falls back to (its default activity if unavailable, else its first unavailable one).
 */
function settingRows(d) {
  const activities = d.activities || [];
  const unavailable = (name) => activities.some((a) => a.name === name && !a.available);
  const fallback = unavailable(d.defaultActivity) ? d.defaultActivity : activities.find((a) => !a.available)?.name;
  const wrap = Object.entries(d.wrapUpSeconds || {}).map(([ch, s]) => ch + " " + s + " s").join(", ");
  const or = (v, absent) => v === undefined || v === null ? absent : v;
  return [
    ["strategy", "Strategy", or(d.strategy, "–")],
    ["offerTimeoutSeconds", "Offer timeout", or(seconds(d.offerTimeoutSeconds), "–")],
    ["wrapUpSeconds", "Wrap-up", wrap || "none"],
    ["serviceLevelThresholdSeconds", "Service-level threshold", or(seconds(d.serviceLevelThresholdSeconds), "–")],
    ["defaultActivity", "Default activity", or(d.defaultActivity, "–")],
    ["missLimit", "Miss limit", d.missLimit === 0 ? "0 (never)" : or(d.missLimit, SERVER_DEFAULT)],
    ["autoAccept", "Auto-accept", d.autoAccept ? (d.autoAccept.join(", ") || "none") : SERVER_DEFAULT],
    ["statsWindowSeconds", "Statistics window", or(seconds(d.statsWindowSeconds), SERVER_DEFAULT)],
    ["restPeriodSeconds", "Rest period", or(seconds(d.restPeriodSeconds), "–")],
    ["rejectActivity", "Reject activity", or(d.rejectActivity, "none (agents stay in theirs)")],
    ["timeoutActivity", "Timeout activity", or(d.timeoutActivity, fallback ? "default (" + fallback + ")" : "default")],
  ];
}

/** A "show all" toggle under a table drawn ROWS at a time. */
function moreButton(id, onToggle) {
  const b = el("button", { type: "button", id, class: "linkish", hidden: true });
  b.addEventListener("click", onToggle);
  return b;
}

function showMore(button, total, all) {
  button.hidden = total <= ROWS;
  button.textContent = all ? "Show the first " + ROWS : "Show all " + total + " (" + (total - ROWS) + " more)";
}

/** Up to this many workspaces the picker is a list; past it, a search box that suggests names. */
const PICKER_OPTIONS = 200;

export function wallboard(ctx, ws = DEFAULT) {
  const supervisor = may("routing:supervisor", ws);
  const picker = el("select", { id: "workspace", "aria-label": "Workspace" },
    el("option", { value: ws, selected: true }, ws));
  picker.addEventListener("change", () => {
    location.hash = picker.value === DEFAULT ? "#/wallboard" : "#/wallboard/" + encodeURIComponent(picker.value);
  });
  // Every workspace, default first, for a key that may list them (routing:supervisor on *); for
  // another key, only the one shown (not asked: a refused call is an error in the browser's log).
  const pickerLabel = el("label", { class: "inline" }, "Workspace", picker);
  if (may("routing:supervisor", "*")) api("GET", "/v1/workspaces").then((list) => {
    const names = list.workspaces.map((w) => w.name).filter((n) => n !== DEFAULT && may("routing:supervisor", n));
    if (may("routing:supervisor", DEFAULT)) names.unshift(DEFAULT);
    if (!names.includes(ws)) names.push(ws);
    if (names.length <= PICKER_OPTIONS) {
      picker.replaceChildren(...names.map((n) => el("option", { value: n, selected: n === ws }, n)));
      return;
    }
    // thousands of workspaces: a search box that suggests names as they are typed, not a list of all
    const options = el("datalist", { id: "workspace-names" }, ...names.map((n) => el("option", { value: n })));
    const search = el("input", { id: "workspace", type: "search", list: "workspace-names", value: ws,
      "aria-label": "Workspace", placeholder: "workspace name" });
    search.addEventListener("change", () => {
      const name = search.value.trim();
      if (names.includes(name)) {
        location.hash = name === DEFAULT ? "#/wallboard" : "#/wallboard/" + encodeURIComponent(name);
      }
    });
    picker.replaceWith(search, options);
  }).catch(() => { /* not allowed to list: only this workspace */ });
  if (!supervisor) {
    ctx.main.append(el("h1", {}, "Routing wallboard"), pickerLabel,
      el("p", { id: "wallboard-refused" }, "The wallboard needs routing:supervisor on the workspace '" + ws + "'; this access key does not have it. The wallboard of another workspace is at #/wallboard/NAME."));
    return;
  }
  const prefix = base(ws);
  /** The workspace's definition: settings, activities, task queues. */
  let definition = { activities: PRESENCES, taskQueues: [], serviceLevelThresholdSeconds: null };
  const byQueue = ws !== DEFAULT;
  const live = el("span", { id: "live", class: "muted" }, "connecting…");
  const cards = el("div", { class: "cards", id: "overall" });
  const groups = el("tbody", { id: "group-rows" });
  const agents = el("tbody", { id: "agent-rows" });
  const waiting = el("tbody", { id: "contact-rows" });
  const levelHead = el("th", { scope: "col", class: "num", id: "level-head" }, "Service level");
  const agentsTitle = el("h2", { id: "agents-title" }, "Agents");
  let allAgents = false;
  let allContacts = false;
  const agentsMore = moreButton("agents-more", () => { allAgents = !allAgents; soon(); });
  const contactsMore = moreButton("contacts-more", () => { allContacts = !allContacts; drawWaiting(); });
  const settings = el("dl", { class: "kv", id: "settings-list" });
  const settingsPanel = el("section", { class: "panel", id: "settings", "aria-labelledby": "settings-title" },
    el("h2", { id: "settings-title" }, "Settings"), settings);
  const groupsNote = el("p", { class: "muted", id: "groups-note", hidden: true },
    "Per task queue: its own figures since the router started, its service level against its own threshold; the cards above are over the statistics window.");
  ctx.main.append(
    el("h1", {}, "Routing wallboard ", live),
    pickerLabel,
    cards,
    el("h2", { id: "groups-title" }, byQueue ? "Task queues" : "Requirement groups"),
    groupsNote,
    el("div", { class: "scroll" }, el("table", { id: "groups", "aria-labelledby": "groups-title" },
      el("thead", {}, el("tr", {}, byQueue ? el("th", { scope: "col" }, "Task queue") : null,
        el("th", { scope: "col" }, "Channel"), el("th", { scope: "col" }, "Requirements"),
        el("th", { scope: "col", class: "num" }, "Waiting"), el("th", { scope: "col", class: "num" }, "Longest wait"),
        levelHead, el("th", { scope: "col", class: "num" }, "ASA"),
        el("th", { scope: "col", class: "num" }, "Abandoned"))),
      groups)),
    el("div", { class: "columns" },
      el("section", { "aria-labelledby": "agents-title" }, agentsTitle,
        el("div", { class: "scroll" }, el("table", { id: "agents" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Agent"), el("th", { scope: "col" }, byQueue ? "Activity" : "Presence"),
            el("th", { scope: "col" }, "Load"), el("th", { scope: "col" }, "Contacts"))),
          agents)), agentsMore),
      el("section", { "aria-labelledby": "waiting-title" }, el("h2", { id: "waiting-title" }, "Waiting contacts"),
        el("div", { class: "scroll" }, el("table", { id: "contacts" },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Contact"), el("th", { scope: "col" }, "Age"),
            el("th", { scope: "col", class: "num" }, "Priority"), el("th", { scope: "col" }, byQueue ? "Queue · requirements" : "Requirements"),
            el("th", { scope: "col" }, ""))),
          waiting)), contactsMore)),
    settingsPanel);

  /**
   * agent id → contact ids assigned to it, from the events since the page opened (the stream
   * starts from now: contacts offered or accepted before are in the agent's load, not named here).
   */
  const current = new Map();
  /** agent id → contact ids offered to it now, likewise from the events since the page opened. */
  const offered = new Map();
  const track = (e) => {
    if (e.type === "reservation.offered") {
      const r = e.reservation;
      offered.set(r.agentId, new Set([...(offered.get(r.agentId) || []), r.contactId]));
    } else if (e.type.startsWith("reservation.")) {
      offered.get(e.agentId)?.delete(e.contactId);
    }
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
  let defined = Promise.resolve();
  const draw = async () => {
    const asked = performance.now();
    try {
      // per task queue, its own statistics route (once the definition names the queues)
      const perQueue = defined.then(() => !byQueue ? [] : Promise.all(definition.taskQueues.map((q) =>
        api("GET", prefix + "/task-queues/" + encodeURIComponent(q.name) + "/stats").catch(() => null))));
      const [qs, a, c, s] = await Promise.all([perQueue, api("GET", prefix + "/agents?limit=500"),
        api("GET", prefix + "/contacts?limit=500"), api("GET", prefix + "/stats")]);
      const answered = performance.now();
      const o = s.overall;
      a.agents.sort((x, y) => (x.activity || "").localeCompare(y.activity || "") || x.id.localeCompare(y.id));
      const counts = new Map();
      a.agents.forEach((ag) => counts.set(ag.activity, (counts.get(ag.activity) || 0) + 1));
      agentsTitle.textContent = "Agents" + (counts.size ? " (" + [...counts].map(([k, v]) => k + " " + v).join(" · ") + ")" : "");
      renderIfChanged(cards, JSON.stringify(s.overall) + JSON.stringify(s.agentsByPresence), () => [
        ["waiting", "Waiting", o.waiting, ""], ["longest", "Longest wait", age(o.longestWaitMillis), ""],
        ["service-level", "Service level", pct(o.serviceLevel), levelClass(o.serviceLevel)],
        ["asa", "Speed of answer", age(o.averageSpeedOfAnswerMillis), ""],
        ["answered", "Answered", o.answered, ""], ["abandoned", "Abandoned", o.abandoned + " (" + pct(o.abandonmentRate) + ")", ""],
        ...Object.entries(s.agentsByPresence).map(([k, v]) => ["presence-" + k, "Agents " + k, v, ""])]
        .map(([id, label, v, cls]) => el("div", { class: "card" }, el("div", { class: "muted" }, label),
          el("div", { class: "big " + cls, id: "wb-" + id }, v))));
      groupsNote.hidden = !qs.length;
      renderIfChanged(groups, JSON.stringify(s.groups) + JSON.stringify(definition.taskQueues) + JSON.stringify(qs) + JSON.stringify(c.contacts.map((ct) => [ct.queue, ct.channel, ct.requirements])), () =>
        qs.length ? queueRows(qs, s.groups, c.contacts) : groupRows(s.groups).map(([q, own, g]) => groupRow(q, own, g)));
      const lastOffers = (id) => [...(offered.get(id) || [])].map((ct) => ct + " (offered)");
      const assigned = a.agents.map((ag) => [...(current.get(ag.id) || []), ...lastOffers(ag.id)]);
      const shownAgents = allAgents ? a.agents : a.agents.slice(0, ROWS);
      showMore(agentsMore, a.agents.length, allAgents);
      renderIfChanged(agents, JSON.stringify(shownAgents) + JSON.stringify(assigned.slice(0, shownAgents.length)), () => shownAgents.map((ag) => {
        const load = Object.entries(ag.capacity).map(([ch, cap]) => ch + " " + (ag.load[ch] || 0) + "/" + cap).join(", ");
        const offers = lastOffers(ag.id);
        return el("tr", { "data-agent": ag.id },
          el("th", { scope: "row" }, ag.id),
          el("td", { "data-field": "presence" }, activitySelect(ag), ag.inWrapUp ? " · wrap-up" : ""),
          el("td", { "data-field": "load" }, load),
          el("td", { "data-field": "contacts" }, [...(current.get(ag.id) || []), ...offers].join(", ") || "–"));
      }));
      lastContacts = c.contacts;
      drawWaiting();
      // What a draw costs, for the console's figures (docs/benchmarks.md): the calls, the DOM.
      performance.measure("wallboard calls", { start: asked, end: answered });
      performance.measure("wallboard rows", { start: answered, end: performance.now() });
    } catch (e) {
      status(e.message, true);
    }
  };
  const drawWaiting = () => {
    const now = Date.now();
    const shown = allContacts ? lastContacts : lastContacts.slice(0, ROWS);
    showMore(contactsMore, lastContacts.length, allContacts);
    renderIfChanged(waiting, JSON.stringify(shown), () => shown.map((ct) => el("tr", { "data-contact": ct.id },
      el("th", { scope: "row" }, ct.id + " (" + ct.channel + ")"),
      el("td", { "data-since": ct.createdAt }, ""),
      el("td", { class: "num" }, supervisor ? priorityForm(ct) : ct.priority),
      el("td", {}, contactRequirements(ct)),
      el("td", {}, supervisor ? el("button", { type: "button", class: "danger", "aria-label": "Abandon contact " + ct.id,
        onclick: async () => {
          if (!(await confirmAction("Abandon contact '" + ct.id + "'? It leaves the line.", "Abandon " + ct.id))) return;
          try { await api("POST", prefix + "/contacts/" + encodeURIComponent(ct.id) + "/abandon"); } catch (e) { status("Abandon refused: " + e.message, true); }
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
        await api("PATCH", prefix + "/contacts/" + encodeURIComponent(ct.id), { priority });
        status("Contact " + ct.id + " now has priority " + priority);
      } catch (e) { status("Reprioritise refused: " + e.message, true); }
    });
    return form;
  };

  /** A requirement group's row (g null: a task queue with nothing counted). */
  const groupRow = (q, own, g) => el("tr", byQueue ? { "data-queue": q || "" } : {},
    byQueue ? el("th", { scope: "row" }, q || "(no task queue)") : null,
    el("td", {}, g ? g.channel : "–"), el("td", {}, own || (byQueue ? "–" : "any agent")),
    ...(g ? [el("td", { class: "num", "data-field": "waiting" }, g.contacts.waiting),
      el("td", { class: "num" }, age(g.contacts.longestWaitMillis)),
      el("td", { class: "num " + levelClass(g.contacts.serviceLevel), "data-field": "service-level" }, pct(g.contacts.serviceLevel)),
      el("td", { class: "num" }, age(g.contacts.averageSpeedOfAnswerMillis)),
      el("td", { class: "num" }, g.contacts.abandoned + " (" + pct(g.contacts.abandonmentRate) + ")")]
      : [el("td", { class: "num", "data-field": "waiting" }, 0), el("td", { class: "num" }, "–"),
        el("td", { class: "num muted", "data-field": "service-level" }, "–"), el("td", { class: "num" }, "–"), el("td", { class: "num" }, "–")]));

  /**
   * One row per task queue from its statistics route (GET .../task-queues/{q}/stats), then the
   * groups of contacts routed through no queue. A contact waits in one row only: a group's
   * requirements name its queue by the queue's worker expression, but a queue without one leaves
   * its contacts' group looking queue-less, so when a queue has no expression the "(no task queue)"
   * rows count only the waiting contacts that have no queue (the contacts list says which).
   */
  const queueRows = (stats, list, contacts) => {
    const ambiguous = definition.taskQueues.some((q) => !q.workerExpression);
    const threshold = definition.serviceLevelThresholdSeconds;
    const rows = definition.taskQueues.map((q, i) => {
      const st = stats[i];
      if (!st) return groupRow(q.name, q.workerExpression || "", null);
      const left = st.answered + st.abandoned + st.timedOut;
      const own = st.serviceLevelThresholdSeconds !== threshold ? " (≤ " + st.serviceLevelThresholdSeconds + " s)" : "";
      return el("tr", { "data-queue": q.name },
        el("th", { scope: "row" }, q.name),
        el("td", {}, "all"), el("td", { class: "muted" }, q.workerExpression || "any agent"),
        el("td", { class: "num", "data-field": "waiting" }, st.waiting),
        el("td", { class: "num" }, age(st.longestWaitMillis)),
        el("td", { class: "num " + levelClass(st.serviceLevel), "data-field": "service-level" }, pct(st.serviceLevel) + own),
        el("td", { class: "num" }, age(st.averageSpeedOfAnswerMillis)),
        el("td", { class: "num", "data-field": "abandoned" }, st.abandoned + " (" + pct(left ? st.abandoned / left : null) + ")"));
    });
    for (const g of list) {
      const [q, own] = queueOf(definition.taskQueues, g.requirements);
      if (q !== null) continue;
      if (!ambiguous) {
        rows.push(groupRow(null, own, g));
        continue;
      }
      const queueless = contacts.filter((ct) => !ct.queue && ct.channel === g.channel
        && (ct.requirements || "") === (g.requirements || "")).length;
      if (queueless > 0) {
        rows.push(groupRow(null, own, { ...g, contacts: { ...g.contacts, waiting: queueless } }));
      }
    }
    return rows;
  };

  /** The groups as table rows: per task queue (every queue, idle ones too) or as they come. */
  const groupRows = (list) => {
    if (!byQueue) return list.map((g) => [null, g.requirements, g]);
    const rows = list.map((g) => [...queueOf(definition.taskQueues, g.requirements), g]);
    for (const q of definition.taskQueues) {
      if (!rows.some(([name]) => name === q.name)) rows.push([q.name, "", null]);
    }
    return rows.sort((x, y) => (x[0] === null) - (y[0] === null) || (x[0] || "").localeCompare(y[0] || ""));
  };

  const contactRequirements = (ct) => {
    if (!ct.queue) return ct.requirements || "any agent";
    const [, own] = queueOf(definition.taskQueues, ct.requirements);
    return ct.queue + (own ? " · " + own : "");
  };

  // An agent's activity (its presence in default): a supervisor moves it from the list.
  const activitySelect = (ag) => {
    const current = byQueue ? ag.activity : ag.presence;
    if (!supervisor) return current;
    const names = definition.activities.map((x) => x.name);
    if (!names.includes(current)) names.push(current);
    const s = el("select", { "aria-label": (byQueue ? "Activity" : "Presence") + " of agent " + ag.id, "data-presence": ag.id },
      ...names.map((p) => el("option", { value: p, selected: p === current }, p)));
    s.addEventListener("change", async () => {
      try {
        const path = prefix + "/agents/" + encodeURIComponent(ag.id);
        if (byQueue) await api("PUT", path + "/activity", { activity: s.value });
        else await api("PUT", path + "/presence", { presence: s.value });
        status("Agent " + ag.id + " is now " + s.value);
      } catch (e) { status((byQueue ? "Activity" : "Presence") + " refused: " + e.message, true); }
    });
    return s;
  };
  const loadDefinition = async () => {
    try {
      const d = await api("GET", "/v1/workspaces/" + encodeURIComponent(ws));
      definition = { ...d, activities: ws === DEFAULT ? PRESENCES : d.activities };
      const t = d.serviceLevelThresholdSeconds;
      levelHead.textContent = t === undefined || t === null ? "Service level" : "Service level (≤ " + t + " s)";
      renderIfChanged(settings, JSON.stringify(d), () => settingRows(d).flatMap(([key, label, value]) =>
        [el("dt", {}, label), el("dd", { "data-setting": key }, String(value))]));
    } catch (e) {
      if (e.code === "WORKSPACE_NOT_FOUND") gone();
      else {
        // Not readable with this key (or the call failed): the rest of the wallboard still works.
        delete settings.dataset.key;
        settings.replaceChildren(el("dt", {}, "Not shown"),
          el("dd", { id: "settings-refused" }, "The workspace's settings could not be read: " + e.message));
        if (ws !== DEFAULT) status("Cannot read workspace '" + ws + "': " + e.message, true);
      }
    }
  };
  const gone = () => {
    stopped = true;
    source?.close();
    live.textContent = "deleted";
    live.className = "bad";
    status("The workspace '" + ws + "' was deleted.", true);
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
  let broken = false;
  const onEvent = (ev) => {
    live.textContent = "live";
    live.className = "good";
    if (ev.lastEventId) lastId = ev.lastEventId;
    live.dataset.lastEvent = lastId || "";
    try { track(JSON.parse(ev.data)); } catch { /* a missed marker: redraw anyway */ }
    soon();
  };
  const onDeleted = () => gone();
  const connect = () => {
    retry = null;
    if (stopped) return;
    // From now on the first connection (the snapshot comes from the API); after the last event
    // seen on a new one. The browser's own reconnections send Last-Event-ID, which wins over from.
    source = new EventSource(prefix + "/events" + (lastId ? "?after=" + encodeURIComponent(lastId) : "?from=now"));
    TYPES.forEach((t) => source.addEventListener(t, onEvent));
    source.addEventListener("workspace.deleted", onDeleted);
    source.onopen = () => {
      live.textContent = "live";
      live.className = "good";
      // Back after a break: the stream also ends when the workspace's settings change, so read
      // the definition (settings, activities, task queues) again.
      if (broken) { broken = false; defined = loadDefinition(); }
      soon();
    };
    source.onerror = () => {
      if (stopped) return;
      broken = true;
      live.textContent = "reconnecting…";
      live.className = "warn";
      // Refused (503 while the server starts; 404 once the workspace is gone): look again.
      if (source.readyState === EventSource.CLOSED && !retry) retry = setTimeout(() => loadDefinition().then(connect), 2000);
    };
  };
  const ticker = setInterval(drawWaiting, 1000);
  ctx.onStop(() => { stopped = true; source?.close(); clearInterval(ticker); clearTimeout(pending); clearTimeout(retry); });
  // The definition, the stream and the first snapshot at once: the first draw waits for the
  // definition (its activities and queues), not for a round trip more.
  defined = loadDefinition();
  connect();
  soon();
}
