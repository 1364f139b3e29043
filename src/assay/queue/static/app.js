// The review page. Every answer, question and model name is written with textContent, never as
// HTML, so text such as <script> or <img onerror=...> is displayed and never runs.
"use strict";

const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("assay-token") || "";
let me = null;
let current = null;

function show(...ids) {
  for (const id of ["login", "start", "item", "reveal", "coordinator"]) $(id).hidden = !ids.includes(id);
}

function status(text) { $("status").textContent = text || ""; }

async function api(method, path, body) {
  const init = { method, headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  if (response.status !== 204) data = await response.json();
  return { status: response.status, data };
}

function pct(x) { return x === null || x === undefined ? "n/a" : (100 * x).toFixed(1) + "%"; }

async function signIn() {
  token = $("token").value.trim() || token;
  const r = await api("GET", "/api/me");
  if (r.status !== 200) { status("That token is not valid."); show("login"); return; }
  sessionStorage.setItem("assay-token", token);
  me = r.data;
  status("");
  if (me.role === "coordinator") {
    $("who").textContent = "Coordinator";
    await loadQueues();
    show("coordinator");
  } else {
    $("who").textContent = "Reviewer " + me.pseudonym + " on queue " + me.queue;
    show("start");
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

function scoreSelect(letter, criterion) {
  const select = document.createElement("select");
  select.id = "score-" + letter + "-" + criterion.name;
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

function render(item) {
  current = item;
  const pair = item.kind === "pair";
  $("item-id").textContent = item.item_id;
  $("lease").textContent = item.lease_expires;
  $("question").textContent = item.question;
  $("context").replaceChildren();
  for (const turn of item.context || []) {
    const p = document.createElement("p");
    p.className = "text";
    p.textContent = turn.role + ": " + turn.content;
    $("context").appendChild(p);
  }
  $("answer-A").textContent = item.answers.A;
  $("answer-B").textContent = pair ? item.answers.B : "";
  $("col-B").hidden = !pair;
  $("choice-box").hidden = !pair;
  for (const el of document.querySelectorAll(".colB")) el.hidden = !pair;
  const body = $("rubric").tBodies[0];
  body.replaceChildren();
  for (const criterion of item.rubric) {
    const row = body.insertRow();
    const name = row.insertCell();
    name.textContent = criterion.name;
    name.title = criterion.question;
    row.insertCell().appendChild(scoreSelect("A", criterion));
    if (pair) row.insertCell().appendChild(scoreSelect("B", criterion));
  }
  for (const radio of document.querySelectorAll("input[name=choice]")) radio.checked = false;
  $("correction").value = "";
  $("note").value = "";
  show("item");
}

async function take() {
  status("");
  const r = await api("POST", "/api/queues/" + encodeURIComponent(me.queue) + "/next");
  if (r.status === 204) { show("start"); status("Nothing left to review in this queue."); return; }
  if (r.status !== 200) { status(r.data.error); return; }
  render(r.data);
}

async function save() {
  const pair = current.kind === "pair";
  const scores = { A: {} };
  if (pair) scores.B = {};
  for (const criterion of current.rubric) {
    for (const letter of Object.keys(scores)) {
      const value = $("score-" + letter + "-" + criterion.name).value;
      scores[letter][criterion.name] = value === "" ? null : Number(value);
    }
  }
  const picked = document.querySelector("input[name=choice]:checked");
  const body = {
    choice: pair ? (picked ? picked.value : null) : null,
    scores,
    correction: $("correction").value || null,
    note: $("note").value || null,
  };
  const r = await api("POST", "/api/items/" + encodeURIComponent(current.item_id) + "/review", body);
  if (r.status !== 200) { status(r.data.error); return; }
  status("Saved.");
  $("model-A").textContent = r.data.models.A || "";
  $("model-B").textContent = r.data.models.B || "";
  $("judge-verdict").textContent = r.data.judge.verdict || "none";
  $("judge-reason").textContent = r.data.judge.reason || "(none given)";
  const agrees = r.data.agrees_with_judge;
  $("agreement").textContent = agrees === null ? "" : agrees ? "(you agreed)" : "(you disagreed)";
  show("reveal");
}

document.addEventListener("DOMContentLoaded", () => {
  $("signin").addEventListener("click", signIn);
  $("take").addEventListener("click", take);
  $("again").addEventListener("click", take);
  $("save").addEventListener("click", save);
  show("login");
  if (token) signIn();
});
