// The review page (editd review): the runs of the root's ledger, each run's files and hunks drawn
// by diff2html, revert and keep per hunk, file and run, live through server-sent events.
//
// Everything a file or a client wrote reaches the page as text: file names, clients and the lines
// found by a conflict go in through textContent; the lines of a hunk go through diff2html, which
// escapes them itself. Markers for what is otherwise invisible (CR, tab, trailing spaces, a BOM, a
// missing final newline) travel through diff2html as Unicode noncharacters and become spans in
// its output's text nodes. The server's Content-Security-Policy allows no inline script or style:
// presentation is by class only. The API and the DOM hooks are in /work/review-contract.md
// (issue 55).
'use strict';

(() => {
  const kToken = document.querySelector('meta[name="editd-token"]').content;
  const kViewKey = 'editd-review-view';
  // Hunks drawn at once when a run opens; the rest when they come near the viewport.
  const kEagerHunks = 60;

  const state = {
    info: null,
    runs: [],
    openRun: null,   // id of the open run
    run: null,       // {run, entries} of the open run
    view: localStorage.getItem(kViewKey) === 'side-by-side' ? 'side-by-side' : 'line-by-line',
    focusedHunk: null,
    conflicts: new Map(),  // hunk id -> the error's data and message
    pending: false,        // a POST is on its way
  };
  const diffCache = new Map();  // view + "\n" + hunk id -> the drawn diff (a hunk never changes)
  // The open run's elements from its last drawing, by key: {sig, node}. A live update draws again
  // only what changed, so the page keeps its layout, scroll and focus.
  let drawn = new Map();
  let drawing = null;  // the map the drawing in progress fills

  const $ = (selector, root = document) => root.querySelector(selector);

  // --- The API -------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, kind, message, data) {
      super(message);
      this.status = status;
      this.kind = kind;
      this.data = data;
    }
  }

  async function api(path, body) {
    const init = { method: 'GET', headers: { 'X-Editd-Token': kToken }, cache: 'no-store' };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, 'network', `editd is not answering (${e.message})`);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const error = data && data.error;
      throw new ApiError(response.status, error && error.kind || 'http',
                         error && error.message || `${path}: HTTP ${response.status}`,
                         error && error.data);
    }
    return data;
  }

  // --- Elements --------------------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function button(action, label, title) {
    const node = el('button', 'action', label);
    node.type = 'button';
    node.dataset.action = action;
    if (title) node.title = title;
    return node;
  }

  function badge(text, kind, title) {
    const node = el('span', `badge${kind ? ` badge-${kind}` : ''}`, text);
    if (title) node.title = title;
    return node;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  const kTimeFormat = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const kDateFormat = new Intl.DateTimeFormat([], { year: 'numeric', month: 'short', day: 'numeric' });

  function formatTime(iso, withDate) {
    const date = new Date(iso);
    if (!iso || Number.isNaN(date.getTime())) return iso || '';
    const time = kTimeFormat.format(date);
    const today = new Date().toDateString() === date.toDateString();
    if (!withDate || today) return time;
    return `${kDateFormat.format(date)} ${time}`;
  }

  function formatSpan(start, end) {
    const a = formatTime(start, true);
    if (!end || end === start) return a;
    const sameDay = new Date(start).toDateString() === new Date(end).toDateString();
    return `${a} – ${formatTime(end, !sameDay)}`;
  }

  function shorten(text, n) {
    return text.length > n ? `${text.slice(0, n)}…` : text;
  }

  // --- Errors ----------------------------------------------------------------------------------

  function showError(message) {
    $('#error-text').textContent = message;
    $('#error').hidden = false;
  }

  function clearError() {
    $('#error').hidden = true;
    $('#error-text').textContent = '';
  }

  function reportError(error) {
    const kind = error.kind && !['http', 'network'].includes(error.kind) ? `${error.kind}: ` : '';
    showError(`${kind}${error.message}`);
  }

  // --- Faithful lines ----------------------------------------------------------------------------

  // Noncharacters (U+FDD0..U+FDEF, never meant for interchange) carry the markers through
  // diff2html, which reads "\r" as a line end and would show the others as blanks or not at all.
  const kMark = {
    cr: '\uFDD0', tab: '\uFDD1', trail: '\uFDD2', bom: '\uFDD3', eol: '\uFDD4', nonchar: '\uFDD5',
  };
  const kNoncharacters = /[\uFDD0-\uFDEF]/g;
  const kMarks = /[\uFDD0-\uFDD5]/;

  // A changed line: every CR, tab, BOM and trailing space made visible.
  function encodeChanged(line) {
    let text = line.replace(kNoncharacters, kMark.nonchar).replace(/\uFEFF/g, kMark.bom);
    let end = '';
    if (text.endsWith('\r')) {
      text = text.slice(0, -1);
      end = kMark.cr;
    }
    text = text.replace(/\r/g, kMark.cr);
    const trailing = /[ \t]+$/.exec(text);
    if (trailing) {
      text = text.slice(0, trailing.index) + trailing[0].replace(/ /g, kMark.trail);
    }
    return text.replace(/\t/g, kMark.tab) + end;
  }

  // An unchanged line: its line end is not news, but a CR inside it would split it.
  function encodeContext(line) {
    const text = line.replace(kNoncharacters, kMark.nonchar);
    return (text.endsWith('\r') ? text.slice(0, -1) : text).replace(/\r/g, kMark.cr);
  }

  // The hunk as a unified diff of one file, its context included, for diff2html. The file's name
  // is not in it: the page shows names itself.
  function unifiedDiff(hunk) {
    const before = hunk.contextBefore || [];
    const after = hunk.contextAfter || [];
    const oldLines = hunk.old || [];
    const newLines = hunk.new || [];
    const lines = [];
    const eol = (i, n, flag) => (flag && i === n - 1 ? kMark.eol : '');
    for (const line of before) lines.push(` ${encodeContext(line)}`);
    oldLines.forEach((line, i) => lines.push(`-${encodeChanged(line)}${eol(i, oldLines.length, hunk.oldNoNewline)}`));
    newLines.forEach((line, i) => lines.push(`+${encodeChanged(line)}${eol(i, newLines.length, hunk.newNoNewline)}`));
    after.forEach((line, i) => lines.push(` ${encodeContext(line)}${eol(i, after.length, hunk.contextAfterNoNewline)}`));
    const oldCount = before.length + oldLines.length + after.length;
    const newCount = before.length + newLines.length + after.length;
    // An empty side starts at the line before it, as diff -u says it.
    const oldStart = oldCount ? hunk.oldStart - before.length : Math.max(0, hunk.oldStart - 1);
    const newStart = newCount ? hunk.newStart - before.length : Math.max(0, hunk.newStart - 1);
    return `--- a/file\n+++ b/file\n@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n${lines.join('\n')}\n`;
  }

  function marker(ch) {
    switch (ch) {
      case kMark.cr: return withTitle(el('span', 'ws-cr', 'CR'), 'carriage return (\\r)');
      case kMark.tab: {
        const tab = withTitle(el('span', 'ws-tab'), 'tab');
        tab.append(el('span', 'ws-glyph', '→'), '\t');
        return tab;
      }
      case kMark.trail: return withTitle(el('span', 'ws-trail', '·'), 'trailing space');
      case kMark.bom: return withTitle(el('span', 'ws-bom', 'BOM'), 'byte order mark (U+FEFF)');
      case kMark.eol: return el('span', 'no-eol', 'no newline at end of file');
      default: return withTitle(el('span', 'ws-nonchar', '\uFFFD'), 'a Unicode noncharacter (U+FDD0..U+FDEF)');
    }
  }

  function withTitle(node, title) {
    node.title = title;
    return node;
  }

  // Replaces the markers in the text nodes under root with their spans.
  function decorate(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const hits = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (kMarks.test(node.data)) hits.push(node);
    }
    for (const node of hits) {
      const parts = document.createDocumentFragment();
      let run = '';
      for (const ch of node.data) {
        if (!kMarks.test(ch)) {
          run += ch;
          continue;
        }
        if (run) parts.append(run);
        run = '';
        parts.append(marker(ch));
      }
      if (run) parts.append(run);
      node.replaceWith(parts);
    }
  }

  function drawDiff(hunk) {
    const key = `${state.view}\n${hunk.id}`;
    let node = diffCache.get(key);
    if (node) return node;
    node = el('div', 'diff');
    if (typeof Diff2Html === 'undefined') {
      node.append(el('p', 'note', 'The diff renderer (diff2html) did not load.'));
      return node;
    }
    const html = Diff2Html.html(unifiedDiff(hunk), {
      outputFormat: state.view, drawFileList: false, matching: 'lines', colorScheme: 'auto',
    });
    // diff2html's own markup, every line and name in it escaped by diff2html.
    const template = document.createElement('template');
    template.innerHTML = html;
    decorate(template.content);
    node.append(template.content);
    diffCache.set(key, node);
    return node;
  }

  // Hunks beyond the first kEagerHunks are drawn when they come near the viewport.
  const lazy = new IntersectionObserver((seen) => {
    for (const entry of seen) {
      if (!entry.isIntersecting) continue;
      const slot = entry.target;
      lazy.unobserve(slot);
      if (slot.isConnected && slot.hunk) slot.replaceWith(drawDiff(slot.hunk));
    }
  }, { root: null, rootMargin: '1200px 0px' });

  function diffOrSlot(hunk, index) {
    if (index < kEagerHunks || diffCache.has(`${state.view}\n${hunk.id}`)) return drawDiff(hunk);
    const slot = el('div', 'diff diff-pending');
    const lines = (hunk.contextBefore || []).length + (hunk.contextAfter || []).length +
                  (hunk.old || []).length + (hunk.new || []).length;
    slot.classList.add(lines > 20 ? 'diff-pending-l' : lines > 5 ? 'diff-pending-m' : 'diff-pending-s');
    slot.hunk = hunk;
    lazy.observe(slot);
    return slot;
  }

  // --- The runs ------------------------------------------------------------------------------

  function runTitle(run) {
    if (run.client) return run.clientVersion ? `${run.client} ${run.clientVersion}` : run.client;
    return run.outside ? 'outside change' : 'unknown client';
  }

  function runWho(run) {
    const parts = [];
    if (run.door) parts.push(run.door);
    if (run.session) parts.push(`session ${shorten(run.session, 12)}`);
    if (run.peer && run.peer !== run.door) parts.push(run.peer);
    if (run.pid) parts.push(`pid ${run.pid}`);
    return parts.join(' · ');
  }

  function runCounts(run) {
    const parts = [plural(run.changes, 'change'), plural(run.files, 'file'), plural(run.hunks, 'hunk')];
    if (run.kept) parts.push(`${run.kept} kept`);
    if (run.reverted) parts.push(`${run.reverted} reverted`);
    return parts.join(' · ');
  }

  function renderRuns() {
    const list = $('#runs');
    const items = state.runs.map((run) => {
      const item = el('button', 'run-item');
      item.type = 'button';
      item.dataset.run = run.id;
      if (run.outside) item.classList.add('outside');
      if (run.id === state.openRun) {
        item.classList.add('open');
        item.setAttribute('aria-current', 'true');
      }
      const title = el('span', 'run-title');
      title.append(el('span', 'run-client', runTitle(run)));
      if (run.outside) title.append(badge('outside', 'outside', 'changed by another hand, not through editd'));
      item.append(title, el('span', 'run-time', formatSpan(run.start, run.end)));
      const who = runWho(run);
      if (who) item.append(el('span', 'run-who', who));
      item.append(el('span', 'run-counts', runCounts(run)));
      if (run.session) item.title = `session ${run.session}`;
      const li = el('li');
      li.append(item);
      return li;
    });
    list.replaceChildren(...items);
    $('#no-runs').hidden = state.runs.length > 0;
  }

  // --- The open run --------------------------------------------------------------------------

  // The run's files in the order they were first changed, each with its changes' hunks.
  function groupByFile(entries) {
    const files = new Map();
    for (const entry of entries) {
      for (const file of entry.files || []) {
        if (!files.has(file.path)) files.set(file.path, { path: file.path, items: [] });
        files.get(file.path).items.push({ entry, file });
      }
    }
    return [...files.values()];
  }

  function hunksOf(files) {
    return files.flatMap((f) => f.items.flatMap(({ file }) => file.hunks || []));
  }

  // Each hunk of a file group with its entry.
  function pairsOf(group) {
    return group.items.flatMap(({ entry, file }) => (file.hunks || []).map((hunk) => ({ hunk, entry })));
  }

  // The ledger never reverts an entry it cannot vouch for (untrusted), nor a hunk twice.
  function revertible({ hunk, entry }) {
    return hunk.state !== 'reverted' && !entry.untrusted;
  }

  function entryNotes(entry) {
    const notes = [];
    if (entry.origin && entry.origin !== 'edit') {
      const of = entry.reverts && entry.reverts.length ? ` of ${entry.reverts.join(', ')}` : '';
      notes.push(badge(`${entry.origin}${of}`, entry.origin));
    }
    if (entry.untrusted) notes.push(badge('untrusted', 'untrusted', 'its record is not signed by this user: never reverted'));
    return notes;
  }

  // What the hunks do not say of a file's change. Created and removed are said by the file's header
  // when the run changed the file once.
  function fileNotes(file, once) {
    const notes = [];
    if (file.created && !once) notes.push(badge('new file', 'created'));
    if (file.removed && !once) notes.push(badge('deleted', 'removed'));
    if (file.beforeMode && file.afterMode && file.beforeMode !== file.afterMode) {
      notes.push(badge(`mode ${file.beforeMode} → ${file.afterMode}`, 'mode'));
    }
    if (file.hunksDropped) notes.push(badge('hunks not kept (too large)', 'omitted'));
    if (file.textsOmitted) notes.push(badge('texts not kept (too large)', 'omitted'));
    return notes;
  }

  function entryLine(entry) {
    const line = el('span', 'entry');
    line.append(el('span', 'change-id', entry.id));
    if (entry.method) line.append(el('span', 'method', entry.method));
    line.append(el('time', 'time', formatTime(entry.time, true)));
    if (entry.client && state.run && entry.client !== state.run.run.client) {
      line.append(el('span', 'client', entry.client));
    }
    line.append(...entryNotes(entry));
    return line;
  }

  function lineRange(start, count) {
    if (count === 0) return start <= 1 ? 'the top' : `after line ${start - 1}`;
    return count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
  }

  // The element drawn last time under key when it was drawn from the same sig, else build()'s.
  function memo(key, sig, build) {
    const old = drawn.get(key);
    const node = old && old.sig === sig ? old.node : build();
    drawing.set(key, { sig, node });
    return node;
  }

  // Makes wanted the children of parent, touching only the places that changed.
  function syncChildren(parent, wanted) {
    const have = parent.children;
    if (have.length === wanted.length && wanted.every((n, i) => n === have[i] || !n.isConnected)) {
      wanted.forEach((n, i) => {
        if (have[i] !== n) have[i].replaceWith(n);
      });
      return;
    }
    parent.replaceChildren(...wanted);
  }

  // Whether some of the hunk's new lines are a formatter's (the file's formatted ranges, lines of
  // the same bytes as written). A range with no lines (the formatter only cut) is the line at the
  // cut; so is a hunk's.
  function meetsFormatted(hunk, formatted) {
    const last = (start, count) => start + Math.max(count, 1) - 1;
    return (formatted || []).some((r) =>
      r.newStart <= last(hunk.newStart, hunk.newCount) && hunk.newStart <= last(r.newStart, r.newCount));
  }

  function renderHunk(hunk, entry, index, readOnly, formatted) {
    const conflict = state.conflicts.get(hunk.id);
    const sig = JSON.stringify([hunk.state, hunk.kept, entry.untrusted, readOnly, state.view, conflict || null, formatted]);
    const node = memo(`hunk\n${hunk.id}`, sig, () => buildHunk(hunk, entry, index, readOnly, conflict, formatted));
    node.classList.toggle('focused', hunk.id === state.focusedHunk);
    return node;
  }

  function buildHunk(hunk, entry, index, readOnly, conflict, formatted) {
    const node = el('article', 'hunk');
    node.dataset.hunk = hunk.id;
    node.dataset.state = hunk.state;
    node.dataset.kept = String(Boolean(hunk.kept));
    node.tabIndex = -1;

    const head = el('header', 'hunk-header');
    head.append(entryLine(entry));
    head.append(el('span', 'range', `${lineRange(hunk.oldStart, hunk.oldCount)} → ${lineRange(hunk.newStart, hunk.newCount)}`));
    if (hunk.state === 'touched') head.append(badge('touched', 'touched', 'a later change changed these lines'));
    if (hunk.state === 'reverted') head.append(badge('reverted', 'reverted', 'taken back'));
    if (hunk.kept) head.append(badge('kept ✓', 'kept', 'reviewed and kept'));
    if (formatted) head.append(badge('formatter', 'formatter', 'a formatter (--format) wrote some of these lines'));
    head.append(el('span', 'spacer'));
    head.append(el('span', 'hunk-id', hunk.id));
    if (!readOnly) {
      const actions = el('span', 'actions');
      const revert = button('revert', 'Revert', 'Take this hunk back (r)');
      revert.disabled = !revertible({ hunk, entry });
      const keep = button('keep', hunk.kept ? 'Unkeep' : 'Keep', hunk.kept ? 'Unmark as reviewed (a)' : 'Mark as reviewed (a)');
      keep.setAttribute('aria-pressed', String(Boolean(hunk.kept)));
      actions.append(revert, keep);
      head.append(actions);
    }
    node.append(head);
    if (conflict) node.append(renderConflict(conflict));

    if (hunk.old || hunk.new) {
      node.append(diffOrSlot(hunk, index));
    } else {
      node.append(el('p', 'note', `${plural(hunk.oldCount, 'line')} became ${plural(hunk.newCount, 'line')}; their texts were not kept.`));
    }
    return node;
  }

  function renderConflict(conflict) {
    const box = el('div', 'conflict');
    box.dataset.conflict = '';
    box.setAttribute('role', 'alert');
    const data = conflict.data || {};
    const where = data.path ? ` at ${data.path}${data.line ? `:${data.line}` : ''}` : '';
    box.append(el('p', 'conflict-message', `Not reverted (conflict${where}): ${conflict.message}`));
    if (Array.isArray(data.found)) {
      box.append(el('p', 'conflict-found-label', data.found.length ? 'The lines there now:' : 'No lines there now.'));
      const pre = el('pre', 'conflict-found');
      data.found.forEach((line, i) => {
        const row = el('span', 'found-line');
        row.append(el('span', 'found-no', data.line ? String(data.line + i) : ''));
        const text = el('span', 'found-text');
        text.append(document.createTextNode(encodeChanged(String(line))));
        decorate(text);
        row.append(text);
        pre.append(row);
      });
      box.append(pre);
    }
    return box;
  }

  function renderFile(group, hunkIndex, readOnly) {
    const section = memo(`file\n${group.path}`, '', () => {
      const node = el('section', 'file');
      node.dataset.file = group.path;
      return node;
    });
    const created = group.items[0].file.created;
    const removed = group.items[group.items.length - 1].file.removed;
    const hunks = group.items.flatMap(({ file }) => file.hunks || []);
    const canRevert = pairsOf(group).some(revertible);
    const allKept = hunks.length > 0 && hunks.every((h) => h.kept);
    const sig = JSON.stringify([created, removed, hunks.length, canRevert, allKept, readOnly]);
    const children = [memo(`file-header\n${group.path}`, sig, () => {
      const head = el('header', 'file-header');
      head.append(el('h3', 'path', group.path));
      if (created) head.append(badge('new file', 'created'));
      if (removed) head.append(badge('deleted', 'removed'));
      head.append(el('span', 'count', plural(hunks.length, 'hunk')));
      head.append(el('span', 'spacer'));
      if (!readOnly) {
        const actions = el('span', 'actions');
        const revert = button('revert-file', 'Revert file', 'Take back every hunk of this file in this run');
        revert.disabled = !canRevert;
        const keep = button('keep-file', allKept ? 'Unkeep file' : 'Keep file', 'Mark every hunk of this file as reviewed');
        keep.disabled = hunks.length === 0;
        keep.setAttribute('aria-pressed', String(allKept));
        actions.append(revert, keep);
        head.append(actions);
      }
      return head;
    })];

    const once = group.items.length === 1;
    for (const { entry, file } of group.items) {
      const notes = fileNotes(file, once);
      if (notes.length || !(file.hunks || []).length) {
        children.push(memo(`file-note\n${entry.id}\n${group.path}`, String(once), () => {
          const note = el('p', 'file-note');
          note.dataset.change = entry.id;
          note.append(entryLine(entry), ...notes);
          if (!notes.length) note.append(badge('no line changed', 'omitted'));
          return note;
        }));
      }
      for (const hunk of file.hunks || []) {
        children.push(renderHunk(hunk, entry, hunkIndex.next++, readOnly, meetsFormatted(hunk, file.formatted)));
      }
    }
    syncChildren(section, children);
    return section;
  }

  function renderRunHeader(data, readOnly) {
    const hunks = hunksOf(groupByFile(data.entries));
    const canRevert = data.entries.some(entryStands);
    const allKept = hunks.length > 0 && hunks.every((h) => h.kept);
    const sig = JSON.stringify([data.run, canRevert, allKept, readOnly]);
    return memo('run-header', sig, () => buildRunHeader(data.run, canRevert, allKept, readOnly));
  }

  function buildRunHeader(run, canRevert, allKept, readOnly) {
    const head = el('header', 'run-header');
    const title = el('h2', 'run-title');
    title.append(el('span', 'run-client', runTitle(run)));
    if (run.outside) title.append(badge('outside', 'outside', 'changed by another hand, not through editd'));
    head.append(title);
    const meta = el('p', 'run-meta');
    const who = runWho(run);
    meta.append(el('span', 'run-time', formatSpan(run.start, run.end)));
    if (who) meta.append(el('span', 'run-who', who));
    meta.append(el('span', 'run-counts', runCounts(run)));
    if (run.session) meta.title = `session ${run.session}`;
    head.append(meta);
    if (!readOnly) {
      const actions = el('span', 'actions');
      const revert = button('revert-run', 'Revert run', 'Take back every change of this run');
      revert.disabled = !canRevert;
      const keep = button('keep-run', allKept ? 'Unkeep run' : 'Keep run', 'Mark every hunk of this run as reviewed');
      keep.setAttribute('aria-pressed', String(allKept));
      actions.append(revert, keep);
      head.append(actions);
    }
    return head;
  }

  function entryStands(entry) {
    if (entry.untrusted) return false;
    const hunks = (entry.files || []).flatMap((f) => f.hunks || []);
    return hunks.length === 0 || hunks.some((h) => h.state !== 'reverted');
  }

  // Draws the open run again, keeping the scroll position and the focus.
  function renderRun() {
    const section = $('#run');
    const main = $('#main');
    const scroll = main.scrollTop;
    const focus = focusKey(document.activeElement);
    if (!state.run) {
      drawn = new Map();
      delete section.dataset.run;
      section.replaceChildren(el('p', 'empty', state.runs.length ? 'Choose a run.' : 'No changes on the ledger yet.'));
      return;
    }
    const readOnly = Boolean(state.info && state.info.readOnly);
    if (section.dataset.run !== state.run.run.id) drawn = new Map();
    section.dataset.run = state.run.run.id;
    drawing = new Map();
    const parts = [renderRunHeader(state.run, readOnly)];
    const files = groupByFile(state.run.entries);
    const hunkIndex = { next: 0 };
    for (const group of files) parts.push(renderFile(group, hunkIndex, readOnly));
    if (state.run.truncated) {
      parts.push(memo('truncated', '', () => el('p', 'note', 'Older changes of this run are not shown (too many).')));
    }
    if (!files.length) parts.push(memo('no-files', '', () => el('p', 'empty', 'This run changed no file.')));
    drawn = drawing;
    drawing = null;
    syncChildren(section, parts);
    if (main.scrollTop !== scroll) main.scrollTop = scroll;
    if (focus && document.activeElement === document.body) restoreFocus(focus);  // its element was replaced
  }

  // Where the focus is, said so that it survives a redraw: its element's action and hunk, file or run.
  function focusKey(node) {
    if (!node || node === document.body || !$('#run').contains(node)) return null;
    const hunk = node.closest('[data-hunk]');
    const file = node.closest('[data-file]');
    return { hunk: hunk && hunk.dataset.hunk, file: file && file.dataset.file, action: node.dataset.action || null };
  }

  function restoreFocus(key) {
    if (!key) return;
    let scope = $('#run');
    if (key.hunk) scope = findByData(scope, 'hunk', key.hunk) || scope;
    else if (key.file) scope = findByData(scope, 'file', key.file) || scope;
    const target = key.action ? findByData(scope, 'action', key.action) : scope;
    if (target) target.focus({ preventScroll: true });
  }

  // The element under root whose data-<name> is value (values are file names: no selector).
  function findByData(root, name, value) {
    if (root.dataset && root.dataset[name] === value) return root;
    for (const node of root.querySelectorAll(`[data-${name}]`)) {
      if (node.dataset[name] === value) return node;
    }
    return null;
  }

  // --- Loading ---------------------------------------------------------------------------------

  // All of a run's entries, oldest first (pages come newest first).
  async function loadRun(id) {
    let before = null;
    let pages = [];
    let run = null;
    let truncated = false;
    for (let n = 0; ; ++n) {
      if (n === 50) {
        truncated = true;
        break;
      }
      const query = `id=${encodeURIComponent(id)}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
      const page = await api(`/api/run?${query}`);
      run = run || page.run;
      pages.unshift(page.entries || []);
      if (!page.nextBefore) break;
      before = page.nextBefore;
    }
    return { run, entries: pages.flat(), truncated };
  }

  async function refreshRuns() {
    const data = await api('/api/runs');
    state.runs = (data && data.runs) || [];
    renderRuns();
  }

  async function refreshOpenRun() {
    const id = state.openRun;
    if (!id) {
      state.run = null;
      renderRun();
      return;
    }
    const data = await loadRun(id);
    if (state.openRun !== id) return;  // another run was opened meanwhile
    state.run = data;
    renderRun();
  }

  async function refresh() {
    await refreshRuns();
    if (!state.openRun || !state.runs.some((r) => r.id === state.openRun)) {
      const wanted = state.runs.length ? state.runs[0].id : null;
      if (wanted !== state.openRun) {
        await openRun(wanted, false);
        return;
      }
    }
    await refreshOpenRun();
  }

  // Refreshes coalesce: one at a time, and one more after it when asked meanwhile.
  let refreshing = null;
  let refreshAgain = false;
  function scheduleRefresh() {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = refresh().catch(reportError).finally(() => {
      refreshing = null;
      if (refreshAgain) {
        refreshAgain = false;
        scheduleRefresh();
      }
    });
  }

  async function openRun(id, scrollTop = true) {
    if (id !== state.openRun) {
      state.openRun = id;
      state.run = null;
      state.focusedHunk = null;
      if (id) history.replaceState(null, '', `${location.pathname}${location.search}#${encodeURIComponent(id)}`);
    }
    for (const item of document.querySelectorAll('#runs [data-run]')) {
      const open = item.dataset.run === id;
      item.classList.toggle('open', open);
      if (open) item.setAttribute('aria-current', 'true');
      else item.removeAttribute('aria-current');
    }
    if (scrollTop) $('#main').scrollTop = 0;
    await refreshOpenRun();
  }

  // --- Revert and keep ---------------------------------------------------------------------------

  async function post(path, body, hunkIds) {
    if (state.pending) return;
    state.pending = true;
    document.body.classList.add('pending');
    try {
      await api(path, body);
      for (const id of hunkIds) state.conflicts.delete(id);
      clearError();
    } catch (error) {
      if (error.kind === 'conflict' && error.data && error.data.hunk) {
        state.conflicts.set(error.data.hunk, { message: error.message, data: error.data });
      }
      reportError(error);
    } finally {
      state.pending = false;
      document.body.classList.remove('pending');
    }
    scheduleRefresh();
  }

  function findHunk(id) {
    if (!state.run) return null;
    for (const entry of state.run.entries) {
      for (const file of entry.files || []) {
        for (const hunk of file.hunks || []) if (hunk.id === id) return { hunk, entry };
      }
    }
    return null;
  }

  function fileHunks(path) {
    const group = groupByFile(state.run.entries).find((g) => g.path === path);
    return group ? pairsOf(group) : [];
  }

  function revertHunks(pairs) {
    const ids = pairs.filter(revertible).map(({ hunk }) => hunk.id);
    if (ids.length) post('/api/revert', { changes: [], hunks: ids }, ids);
  }

  function keepHunks(pairs) {
    if (!pairs.length) return;
    const kept = !pairs.every(({ hunk }) => hunk.kept);
    post('/api/keep', { changes: [], hunks: pairs.map(({ hunk }) => hunk.id), kept }, []);
  }

  function act(action, target) {
    if (!state.run || (state.info && state.info.readOnly)) return;
    const hunkNode = target.closest('[data-hunk]');
    const fileNode = target.closest('[data-file]');
    switch (action) {
      case 'revert':
      case 'keep': {
        const pair = hunkNode && findHunk(hunkNode.dataset.hunk);
        if (!pair) return;
        setFocused(pair.hunk.id, false);
        if (action === 'revert') revertHunks([pair]);
        else keepHunks([pair]);
        return;
      }
      case 'revert-file':
        if (fileNode) revertHunks(fileHunks(fileNode.dataset.file));
        return;
      case 'keep-file':
        if (fileNode) keepHunks(fileHunks(fileNode.dataset.file));
        return;
      case 'revert-run': {
        const changes = state.run.entries.filter(entryStands).map((e) => e.id);
        const hunks = hunksOf(groupByFile(state.run.entries)).map((h) => h.id);
        if (changes.length) post('/api/revert', { changes, hunks: [] }, hunks);
        return;
      }
      case 'keep-run': {
        const hunks = hunksOf(groupByFile(state.run.entries));
        const kept = !(hunks.length && hunks.every((h) => h.kept));
        post('/api/keep', { changes: state.run.entries.map((e) => e.id), hunks: [], kept }, []);
        return;
      }
      default:
    }
  }

  // --- Focus and keys ------------------------------------------------------------------------------

  function hunkNodes() {
    return [...document.querySelectorAll('#run [data-hunk]')];
  }

  function setFocused(id, scroll) {
    state.focusedHunk = id;
    let focused = null;
    for (const node of hunkNodes()) {
      const on = node.dataset.hunk === id;
      node.classList.toggle('focused', on);
      if (on) focused = node;
    }
    if (focused && scroll) {
      focused.scrollIntoView({ block: 'start', behavior: 'auto' });
      focused.focus({ preventScroll: true });
    }
  }

  function step(delta) {
    const nodes = hunkNodes();
    if (!nodes.length) return;
    const at = nodes.findIndex((n) => n.dataset.hunk === state.focusedHunk);
    const next = at < 0 ? (delta > 0 ? 0 : nodes.length - 1) : Math.min(nodes.length - 1, Math.max(0, at + delta));
    setFocused(nodes[next].dataset.hunk, true);
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    const help = $('#help');
    if (help.open) return;
    switch (event.key) {
      case 'j': step(1); break;
      case 'k': step(-1); break;
      case 'r':
      case 'a': {
        const node = state.focusedHunk && findByData($('#run'), 'hunk', state.focusedHunk);
        if (!node) return;
        const action = event.key === 'r' ? 'revert' : 'keep';
        act(action, node);
        break;
      }
      case '?': help.showModal(); break;
      default: return;
    }
    event.preventDefault();
  }

  // --- The view ----------------------------------------------------------------------------------

  function setView(view) {
    state.view = view;
    localStorage.setItem(kViewKey, view);
    for (const b of document.querySelectorAll('[data-action="view-unified"], [data-action="view-split"]')) {
      const on = (b.dataset.action === 'view-split') === (view === 'side-by-side');
      b.setAttribute('aria-pressed', String(on));
    }
    document.body.classList.toggle('view-split', view === 'side-by-side');
    if (state.run) renderRun();
  }

  function onClick(event) {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const runItem = target.closest('#runs [data-run]');
    if (runItem) {
      openRun(runItem.dataset.run).catch(reportError);
      return;
    }
    const actionNode = target.closest('button[data-action]');
    const hunkNode = target.closest('#run [data-hunk]');
    if (hunkNode && !actionNode) setFocused(hunkNode.dataset.hunk, false);
    if (!actionNode || actionNode.disabled) return;
    const action = actionNode.dataset.action;
    switch (action) {
      case 'view-unified': setView('line-by-line'); return;
      case 'view-split': setView('side-by-side'); return;
      case 'help': $('#help').showModal(); return;
      case 'close-help': $('#help').close(); return;
      case 'dismiss-error': clearError(); return;
      default: act(action, actionNode);
    }
  }

  // --- Live ----------------------------------------------------------------------------------------

  function setLive(status, text) {
    const live = $('#live');
    live.dataset.live = status;
    live.textContent = text;
  }

  function connect() {
    const events = new EventSource(`/api/events?token=${encodeURIComponent(kToken)}`);
    let wasOpen = false;
    events.addEventListener('open', () => {
      setLive('live', 'live');
      if (wasOpen) scheduleRefresh();  // what happened while the stream was down
      wasOpen = true;
    });
    events.addEventListener('error', () => {
      if (events.readyState === EventSource.CLOSED) {
        setLive('down', 'offline');
        setTimeout(connect, 3000);  // EventSource gives up on an HTTP error: try again
      } else {
        setLive('reconnecting', 'reconnecting');
      }
    });
    events.addEventListener('change', scheduleRefresh);
    events.addEventListener('kept', scheduleRefresh);
    events.addEventListener('message', scheduleRefresh);
  }

  async function start() {
    document.addEventListener('click', onClick);
    document.addEventListener('keydown', onKey);
    setView(state.view);
    try {
      state.info = await api('/api/info');
    } catch (error) {
      reportError(error);
      $('#run').replaceChildren(el('p', 'empty', 'The review page cannot reach editd.'));
      return;
    }
    $('#root').textContent = state.info.root || '';
    $('#root').title = state.info.version ? `editd ${state.info.version}` : '';
    $('#mode').hidden = !state.info.readOnly;
    document.body.classList.toggle('read-only', Boolean(state.info.readOnly));
    const wanted = decodeURIComponent(location.hash.slice(1));
    try {
      await refreshRuns();
      const open = state.runs.find((r) => r.id === wanted) || state.runs[0];
      await openRun(open ? open.id : null);
    } catch (error) {
      reportError(error);
    }
    connect();
  }

  start();
})();
