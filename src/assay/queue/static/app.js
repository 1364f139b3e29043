// The review page. Every answer, question, reference and model name is written with textContent,
// never as HTML, so text such as <script> or <img onerror=...> is displayed and never runs.
//
// Every step is a <form>: Enter in the token field signs in, Enter or Space on a button submits it.
// After an item is taken, focus moves to its heading; after saving, to the reveal's heading; after an
// error, to the first field in error (marked aria-invalid, its message linked by aria-describedby).
// A draft (choice, scores, correction, note) is kept in localStorage under the queue, the reviewer and
// the item, so a reload loses nothing; saving clears it, and a draft untouched for DRAFT_DAYS days is
// dropped. Reviews are independent: when a reviewer signs in, every draft of another reviewer (or of
// no named reviewer) kept in this browser profile is dropped, never shown; and the reveal (the models'
// names, the judge's verdict) is emptied before the next item is taken.
"use strict";

const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("assay-token") || "";
let me = null;
let current = null;
let leaseEnds = 0;  // Date.now() milliseconds at which the lease runs out, from the server's seconds left
let leaseTimer = null;

function show(...ids) {
  for (const id of ["login", "start", "item", "reveal", "coordinator"]) $(id).hidden = !ids.includes(id);
}

function status(text, kind) {
  const el = $("status");
  el.textContent = text || "";
  el.className = text ? kind || "info" : "";
}

async function api(method, path, body) {
  const init = { method, headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (_e) {
    return { status: 0, data: { error: "The server could not be reached. Check your connection and try again." } };
  }
  if (response.status === 401 && me) { signedOut(); return { status: 401, data: { error: "" } }; }
  let data = null;
  if (response.status !== 204) {
    try { data = await response.json(); } catch (_e) { data = { error: "The server sent an answer this page cannot read." }; }
  }
  return { status: response.status, data };
}

// The token stopped working mid-session (a coordinator issued a new one): back to sign-in, drafts kept.
function signedOut() {
  me = null;
  clearReveal();
  sessionStorage.removeItem("assay-token");
  clearInterval(leaseTimer);
  status("");
  show("login");
  setError($("token"), $("token-error"), "Your token is no longer valid (a new one may have been issued). "
    + "Sign in with your current token; what you typed is kept.");
  $("token").focus();
}

function pct(x) { return x === null || x === undefined ? "n/a" : (100 * x).toFixed(1) + "%"; }

// ---- errors next to their fields --------------------------------------------------------------

function setError(control, messageEl, text) {
  if (control) {
    if (text) control.setAttribute("aria-invalid", "true"); else control.removeAttribute("aria-invalid");
  }
  messageEl.textContent = text || "";
  messageEl.hidden = !text;
}

function clearErrors() {
  for (const el of document.querySelectorAll("#item [aria-invalid]")) el.removeAttribute("aria-invalid");
  for (const el of document.querySelectorAll("#item .field-error")) { el.textContent = ""; el.hidden = true; }
}

// The control and message element a server field name ("choice", "scores.A.tone", "note" ...) concerns.
function fieldTarget(field) {
  const parts = (field || "").split(".");
  if (parts[0] === "choice") return { control: $("choice-box"), message: $("choice-error"), focus: firstRadio() };
  if (parts[0] === "scores" && parts.length === 3 && $("score-" + parts[1] + "-" + parts[2])) {
    const select = $("score-" + parts[1] + "-" + parts[2]);
    return { control: select, message: $("error-" + parts[1] + "-" + parts[2]), focus: select };
  }
  if (parts[0] === "scores") {
    const first = document.querySelector("#rubric select");
    return { control: $("rubric"), message: $("scores-error"), focus: first };
  }
  if (parts[0] === "correction" || parts[0] === "note") {
    return { control: $(parts[0]), message: $(parts[0] + "-error"), focus: $(parts[0]) };
  }
  return { control: null, message: $("form-error"), focus: $("save") };
}

// A field given a value loses its error (the others stay until the next save).
function clearFieldError(event) {
  const el = event.target;
  if (el.name === "choice") { setError($("choice-box"), $("choice-error"), ""); return; }
  const score = /^score-([AB])-(.+)$/.exec(el.id || "");
  if (score && el.value !== "") setError(el, $("error-" + score[1] + "-" + score[2]), "");
}

function firstRadio() {
  return document.querySelector("input[name=choice]:checked") || document.querySelector("input[name=choice]");
}

// ---- signing in and the coordinator's table ---------------------------------------------------

async function signIn(event) {
  if (event) event.preventDefault();
  token = $("token").value.trim() || token;
  if (!token) { setError($("token"), $("token-error"), "Enter the token your coordinator gave you."); $("token").focus(); return; }
  const r = await api("GET", "/api/me");
  if (r.status !== 200) {
    sessionStorage.removeItem("assay-token");
    show("login");
    setError($("token"), $("token-error"), r.status === 401 ? "That token is not valid. Check it with your coordinator."
      : r.data.error);
    $("token").focus();
    return;
  }
  setError($("token"), $("token-error"), "");
  sessionStorage.setItem("assay-token", token);
  $("token").value = "";
  me = r.data;
  clearReveal();
  status("");
  if (me.role === "coordinator") {
    $("who").textContent = "Coordinator";
    await loadQueues();
    show("coordinator");
  } else {
    $("who").textContent = "Reviewer " + me.pseudonym + " on queue " + me.queue;
    dropOthersDrafts();
    if (sessionStorage.getItem(heldKey())) { await take(); return; }  // a reload: the lease gives the same item back
    show("start");
    $("take").focus();
  }
}

async function loadQueues() {
  const r = await api("GET", "/api/queues");
  const body = $("queues").tBodies[0];
  body.replaceChildren();
  for (const q of r.data.queues) {
    const res = await api("GET", "/api/queues/" + encodeURIComponent(q.name) + "/results");
    const row = body.insertRow();
    const cells = [q.name, q.fill, String(q.items), String(q.reviewed), String(q.leased)];
    for (const text of cells) row.insertCell().textContent = text;
    const agree = row.insertCell();
    const a = res.data.agreement;
    agree.textContent = pct(a.agreement) + " of " + a.n_decided + " decided (" + a.reading + ")";
    if (q.biased_for_overall_agreement) {
      const flag = document.createElement("span");
      flag.className = "biased";
      flag.textContent = " hard fill: biased, not an estimate of overall agreement";
      agree.appendChild(flag);
    }
  }
}

// ---- the item ---------------------------------------------------------------------------------

function reviewerPart() { return encodeURIComponent(me.queue) + ":" + encodeURIComponent(me.pseudonym) + ":"; }
function heldKey() { return "assay-held:" + (me ? reviewerPart() : ""); }
function draftKey(item) { return "assay-draft:" + reviewerPart() + encodeURIComponent(item.item_id); }

// Drop every draft and held item in this profile that is not this reviewer's (another reviewer's
// choice, scores and note must never be shown to them).
function dropOthersDrafts() {
  const mine = (prefix) => (key) => !key.startsWith(prefix) || key.startsWith(prefix + reviewerPart());
  for (const key of Object.keys(localStorage)) if (!mine("assay-draft:")(key)) localStorage.removeItem(key);
  for (const key of Object.keys(sessionStorage)) if (!mine("assay-held:")(key)) sessionStorage.removeItem(key);
}
function letters() { return current.kind === "pair" ? ["A", "B"] : ["A"]; }

function scoreSelect(letter, criterion) {
  const select = document.createElement("select");
  select.id = "score-" + letter + "-" + criterion.name;
  select.setAttribute("aria-labelledby", "crit-" + criterion.name + " col-score-" + letter);
  select.setAttribute("aria-describedby", "def-" + criterion.name + " error-" + letter + "-" + criterion.name);
  const blank = document.createElement("option");
  blank.value = ""; blank.textContent = "-";
  select.appendChild(blank);
  for (let v = criterion.min; v <= criterion.max; v++) {
    const option = document.createElement("option");
    option.value = String(v); option.textContent = String(v);
    select.appendChild(option);
  }
  return select;
}

function scoreCell(row, letter, criterion) {
  const cell = row.insertCell();
  cell.appendChild(scoreSelect(letter, criterion));
  const error = document.createElement("p");
  error.id = "error-" + letter + "-" + criterion.name;
  error.className = "field-error";
  error.hidden = true;
  cell.appendChild(error);
}

function listItems(list, texts) {
  list.replaceChildren();
  for (const build of texts) list.appendChild(build());
}

function renderReference(reference) {
  const facts = (reference && reference.facts) || [];
  const docs = (reference && reference.documents) || [];
  $("reference").hidden = !facts.length && !docs.length;
  $("facts-box").hidden = !facts.length;
  $("documents-box").hidden = !docs.length;
  listItems($("facts"), facts.map((fact) => () => {
    const li = document.createElement("li"); li.textContent = fact; return li;
  }));
  listItems($("documents"), docs.map((doc) => () => {
    const li = document.createElement("li");
    const name = doc.title ? doc.title + " (" + doc.id + ")" : doc.id;
    if (!doc.text) { li.textContent = name; return li; }
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = name;
    const text = document.createElement("div");
    text.className = "text";
    text.textContent = doc.text;
    details.append(summary, text);
    li.appendChild(details);
    return li;
  }));
}

function render(item) {
  current = item;
  const pair = item.kind === "pair";
  clearErrors();
  $("item-id").textContent = item.item_id;
  leaseEnds = Date.now() + 1000 * (item.lease_seconds_left ?? 0);
  $("lease").dateTime = item.lease_expires;
  $("lease").textContent = new Date(leaseEnds).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  showLeaseLeft();
  clearInterval(leaseTimer);
  leaseTimer = setInterval(showLeaseLeft, 15000);
  $("question").textContent = item.question;
  $("context").replaceChildren();
  for (const turn of item.context || []) {
    const p = document.createElement("p");
    p.className = "text";
    p.textContent = turn.role + ": " + turn.content;
    $("context").appendChild(p);
  }
  renderReference(item.reference);
  $("answer-A").textContent = item.answers.A;
  $("answer-B").textContent = pair ? item.answers.B : "";
  for (const el of document.querySelectorAll(".colB")) el.hidden = !pair;
  $("head-A").textContent = pair ? "Answer A" : "The answer";
  $("col-score-A").textContent = pair ? "Answer A" : "Score";
  const body = $("rubric").tBodies[0];
  body.replaceChildren();
  for (const criterion of item.rubric) {
    const row = body.insertRow();
    const head = document.createElement("th");
    head.scope = "row";
    const name = document.createElement("span");
    name.className = "criterion";
    name.id = "crit-" + criterion.name;
    name.textContent = criterion.name;
    const definition = document.createElement("span");
    definition.className = "definition";
    definition.id = "def-" + criterion.name;
    definition.textContent = criterion.question + " (" + criterion.min + " to " + criterion.max + ")";
    head.append(name, definition);
    row.appendChild(head);
    scoreCell(row, "A", criterion);
    if (pair) scoreCell(row, "B", criterion);
  }
  for (const radio of document.querySelectorAll("input[name=choice]")) radio.checked = false;
  $("correction").value = "";
  $("note").value = "";
  $("draft-note").hidden = !restoreDraft();
  sessionStorage.setItem(heldKey(), item.item_id);
  show("item");
  $("item-heading").focus();
}

function showLeaseLeft() {
  const minutes = Math.max(0, Math.ceil((leaseEnds - Date.now()) / 60000));
  $("lease-left").textContent = minutes > 0 ? "(" + minutes + (minutes === 1 ? " minute" : " minutes") + " left)"
    : "(the lease has run out: take the next item; it may come back to you)";
}

function readForm() {
  const scores = {};
  for (const letter of letters()) {
    scores[letter] = {};
    for (const criterion of current.rubric) {
      const value = $("score-" + letter + "-" + criterion.name).value;
      scores[letter][criterion.name] = value === "" ? null : Number(value);
    }
  }
  const picked = document.querySelector("input[name=choice]:checked");
  return {
    choice: current.kind === "pair" ? (picked ? picked.value : null) : null,
    scores,
    correction: $("correction").value || null,
    note: $("note").value || null,
  };
}

const DRAFT_DAYS = 14;  // a draft of an item never saved is dropped after this many days

function keepDraft() {
  if (current) localStorage.setItem(draftKey(current), JSON.stringify({ ...readForm(), kept_at: Date.now() }));
}

function dropOldDrafts() {
  const oldest = Date.now() - DRAFT_DAYS * 86400000;
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith("assay-draft:")) continue;
    let kept = 0;
    try { kept = JSON.parse(localStorage.getItem(key)).kept_at || 0; } catch (_e) { kept = 0; }
    if (kept < oldest) localStorage.removeItem(key);
  }
}

function restoreDraft() {
  let draft = null;
  try { draft = JSON.parse(localStorage.getItem(draftKey(current)) || "null"); } catch (_e) { draft = null; }
  if (!draft || typeof draft !== "object") return false;
  for (const radio of document.querySelectorAll("input[name=choice]")) radio.checked = radio.value === draft.choice;
  for (const [letter, byName] of Object.entries(draft.scores || {})) {
    for (const [name, value] of Object.entries(byName || {})) {
      const select = $("score-" + letter + "-" + name);
      if (select && value !== null) select.value = String(value);
    }
  }
  $("correction").value = draft.correction || "";
  $("note").value = draft.note || "";
  return true;
}

// What is missing, in plain words, before anything is sent: every empty score and the choice.
function missing(review) {
  const out = [];
  for (const letter of letters()) {
    for (const criterion of current.rubric) {
      if (review.scores[letter][criterion.name] === null) {
        const whose = current.kind === "pair" ? "Answer " + letter + " a " : "a ";
        out.push({ field: "scores." + letter + "." + criterion.name,
                   error: "Give " + whose + criterion.name + " score from " + criterion.min + " to " + criterion.max + "." });
      }
    }
  }
  if (current.kind === "pair" && review.choice === null) {
    out.push({ field: "choice", error: "Choose which answer is better: Answer A, Answer B or a tie." });
  }
  return out;
}

function showErrors(errors) {
  clearErrors();
  let first = null;
  for (const e of errors) {
    const target = fieldTarget(e.field);
    setError(target.control, target.message, e.error);
    if (!first) first = target.focus;
  }
  status(errors.length === 1 ? "The review was not saved: one field needs attention."
    : "The review was not saved: " + errors.length + " fields need attention.", "error");
  if (first) first.focus();
}

async function take(event) {
  if (event) event.preventDefault();
  status("");
  clearReveal();
  const r = await api("POST", "/api/queues/" + encodeURIComponent(me.queue) + "/next");
  if (r.status === 204) {
    sessionStorage.removeItem(heldKey());
    show("start");
    status("Nothing left to review in this queue.", "info");
    $("take").focus();
    return;
  }
  if (r.status !== 200) { status(r.data.error, "error"); return; }
  render(r.data);
}

async function save(event) {
  event.preventDefault();
  const review = readForm();
  const gaps = missing(review);
  if (gaps.length) { showErrors(gaps); return; }
  const r = await api("POST", "/api/items/" + encodeURIComponent(current.item_id) + "/review", review);
  if (r.status === 422) { showErrors([{ field: r.data.field, error: r.data.error }]); return; }
  if (r.status === 413) {  // the server's limit on a review's size: the longer text is the one to shorten
    const longer = (review.note || "").length >= (review.correction || "").length ? "note" : "correction";
    showErrors([{ field: longer, error: "This is too long to save: " + r.data.error + "." }]);
    return;
  }
  if (r.status !== 200) {
    clearErrors();
    setError(null, $("form-error"), r.data.error);
    status("The review was not saved.", "error");
    $("save").focus();
    return;
  }
  localStorage.removeItem(draftKey(current));
  sessionStorage.removeItem(heldKey());
  clearInterval(leaseTimer);
  renderReveal(review, r.data);
  status("Saved. The models and the judge's verdict are shown below.", "success");
  show("reveal");
  $("reveal-heading").focus();
}

function answerName(letter) { return letter === "tie" ? "Tie" : letter ? "Answer " + letter : "none"; }

// Empty the reveal: hidden or not, the page must not hold one item's model names once the next is taken.
function clearReveal() {
  for (const id of ["reveal-question", "reveal-answer-A", "reveal-answer-B", "model-A", "model-B", "your-choice",
    "judge-verdict", "agreement", "judge-reason"]) $(id).textContent = "";
  for (const row of $("verdicts").tBodies[0].querySelectorAll("tr.score")) row.remove();
}

function renderReveal(review, reveal) {
  const pair = current.kind === "pair";
  $("reveal-question").textContent = current.question;
  $("reveal-answer-A").textContent = current.answers.A;
  $("reveal-answer-B").textContent = pair ? current.answers.B : "";
  $("model-A").textContent = reveal.models.A || "";
  $("model-B").textContent = reveal.models.B || "";
  $("your-choice").textContent = answerName(review.choice);
  $("judge-verdict").textContent = reveal.judge.verdict ? answerName(reveal.judge.verdict) : "none";
  const body = $("verdicts").tBodies[0];
  for (const row of body.querySelectorAll("tr.score")) row.remove();
  const judgeScores = reveal.judge.scores || {};
  for (const letter of Object.keys(judgeScores).length ? letters() : []) {  // scores side by side when the judge scored
    for (const criterion of current.rubric) {
      const row = body.insertRow();
      row.className = "score";
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = (pair ? "Answer " + letter + " " : "") + criterion.name;
      row.appendChild(head);
      row.insertCell().textContent = String(review.scores[letter][criterion.name]);
      const judged = (judgeScores[letter] || {})[criterion.name];
      row.insertCell().textContent = judged === undefined || judged === null ? "not scored" : String(judged);
    }
  }
  const agrees = reveal.agrees_with_judge;
  $("agreement").textContent = agrees === null ? "" : agrees ? "You and the judge agree." : "You and the judge disagree.";
  $("agreement").hidden = agrees === null;
  $("judge-reason").textContent = reveal.judge.reason || "";
  $("judge-reason-line").hidden = !reveal.judge.reason;
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", signIn);
  $("start").addEventListener("submit", take);
  $("reveal").addEventListener("submit", take);
  $("item").addEventListener("submit", save);
  $("item").addEventListener("input", keepDraft);
  $("item").addEventListener("change", keepDraft);
  $("item").addEventListener("change", clearFieldError);
  show("login");
  dropOldDrafts();
  if (token) signIn();
});
