// cfsim timeline (src/timeline/page.js): reads the run's data from #cfsim-data (format in
// src/timeline/mod.rs), lays bundles (rows, in call order) × stages/passes (columns) × promise types
// (segments, in evaluation order) out once, and draws only the rows in view (virtual scrolling). Policy
// text reaches the document only through textContent and attribute values, never as markup.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('cfsim-data').textContent);
  var S = D.strings;
  var E = D.events;
  var ROWS = D.rows;

  // layout constants (px); the row and segment heights below are set inline from these
  var HEAD_W = 200, COLHEAD_H = 40, LABEL_W = 58, PITCH = 12, GRP_PAD = 8, SEG_GAP = 3, MIN_ROW_H = 34, BUFFER = 600;

  var CATS = [
    ['kept', 'kept', 'promise kept (nothing to change)'],
    ['repaired', 'repaired', 'promise repaired (something changed)'],
    ['failed', 'failed', 'promise not kept'],
    ['guard', 'skipped: guard false', 'its class guard was false at this evaluation'],
    ['skipped', 'skipped: other reason', 'if/unless, depends_on, already defined or done, unresolved variables, …'],
    ['not_simulated', 'not simulated', 'a promise type cfsim does not simulate'],
    ['none', 'no outcome', 'evaluated without an outcome']
  ];
  var SKIP_TEXT = {
    guard: 'the class guard was false',
    'if': 'the if/ifvarclass condition was false',
    unless: 'the unless condition was true',
    depends_on: 'a promise it depends_on was not yet kept or repaired',
    already_defined: 'the class was already defined (classes promises are not re-evaluated once defined)',
    already_done: 'already done in this run (same promise, same values)',
    unresolved: 'a variable it references is not (yet) resolved',
    deferred: 'deferred to a later pass',
    not_simulated: 'cfsim does not simulate it (its promise type, or a command the host profile has no result for)',
    undefined_type: 'the promise type is not defined',
    failed_function: 'a function call failed',
    constant: 'a policy => "constant" variable kept its value',
    missing_bundle: 'the methods call names a bundle that does not exist',
    no_value: 'the value expanded to nothing',
    illegal_identifier: 'the variable name is not a legal identifier',
    type_mismatch: 'the value does not fit the variable type',
    irreconcilable: 'the class expression cannot be evaluated',
    preliminary: 'not evaluated in pre-evaluation',
    too_large: 'the value is over cfsim\'s size limits'
  };

  function str(i) { return (typeof i === 'number' && i >= 0 && i < S.length) ? S[i] : null; }
  function list(v) { return Array.isArray(v) ? v : []; }
  // the fields of event i
  function ev(i) {
    var a = E[i];
    return {
      seq: i + 1, row: a[0], stage: str(a[1]), pass: a[2], type: str(a[3]), promiser: str(a[4]),
      file: str(a[5]), line: a[6], iteration: a[7], handle: str(a[8]), guard: str(a[9]),
      guardValue: a[10] === 1, skip: str(a[11]), outcome: str(a[12]),
      set: list(a[13]).map(str), cancelled: list(a[14]).map(str), vars: list(a[15]).map(str),
      written: str(a[16])
    };
  }
  function category(a) {
    var skip = str(a[11]), outcome = str(a[12]);
    if (outcome === 'failed') return 'failed';
    if (skip === 'not_simulated') return 'not_simulated';
    if (skip === 'guard') return 'guard';
    if (skip) return 'skipped';
    if (outcome === 'repaired') return 'repaired';
    if (outcome === 'kept') return 'kept';
    return 'none';
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function bundleOf(r) { var p = ROWS[r] || []; return str(p[p.length - 1]) || '?'; }
  function stageLabel(stage, pass) {
    if (stage === 'preeval') return 'pre-evaluation';
    if (stage === 'pass') return 'pass ' + pass;
    if (stage === 'resolve') return 'resolve ' + pass;
    return String(stage) + ' ' + pass;
  }
  function stageTitle(stage, pass) {
    if (stage === 'preeval') return 'PolicyResolve before the run: common bundles\' vars and classes, in the order of the inputs';
    if (stage === 'pass') return 'Pass ' + pass + ' of the bundle: every promise type in normal order';
    if (stage === 'resolve') return 'BundleResolve during pass ' + pass + ': vars and classes again, on a methods call and after the classes section';
    return '';
  }

  // ---- columns: the (stage, pass) pairs that occur, pre-evaluation first, then by pass
  var STAGE_RANK = { preeval: 0, pass: 1, resolve: 2 };
  var colKey = {}, COLS = [];
  var i, n = E.length;
  var evCol = new Int32Array(n), evCat = new Array(n);
  for (i = 0; i < n; i++) {
    var st = str(E[i][1]), k = st + ':' + E[i][2];
    if (!(k in colKey)) { colKey[k] = -1; COLS.push({ key: k, stage: st, pass: E[i][2], count: 0, added: 0 }); }
    evCat[i] = category(E[i]);
  }
  COLS.sort(function (a, b) {
    var ra = a.stage in STAGE_RANK ? STAGE_RANK[a.stage] : 3, rb = b.stage in STAGE_RANK ? STAGE_RANK[b.stage] : 3;
    if ((ra === 0) !== (rb === 0)) return ra === 0 ? -1 : 1;
    if (a.pass !== b.pass) return a.pass - b.pass;
    if (ra !== rb) return ra - rb;
    return a.stage < b.stage ? -1 : a.stage > b.stage ? 1 : 0;
  });
  COLS.forEach(function (c, j) { colKey[c.key] = j; });
  for (i = 0; i < n; i++) { evCol[i] = colKey[str(E[i][1]) + ':' + E[i][2]]; COLS[evCol[i]].count++; }

  // ---- groups: per row and column, the segments (runs of one promise type in evaluation order)
  var nr = ROWS.length, nc = COLS.length;
  var groups = new Array(nr * nc);
  for (i = 0; i < n; i++) {
    var g = E[i][0] * nc + evCol[i];
    var segs = groups[g] || (groups[g] = []);
    var last = segs[segs.length - 1];
    if (last && last.type === E[i][3]) last.ev.push(i); else segs.push({ type: E[i][3], ev: [i] });
  }
  // cells per line of each column, from its longest segment
  var perLine = new Array(nc), colX = new Array(nc), colW = new Array(nc), x = HEAD_W;
  for (var c = 0; c < nc; c++) {
    var longest = 1;
    for (var r = 0; r < nr; r++) {
      (groups[r * nc + c] || []).forEach(function (s) { if (s.ev.length > longest) longest = s.ev.length; });
    }
    perLine[c] = Math.max(5, Math.min(32, Math.ceil(Math.sqrt(longest * 3))));
    colX[c] = x; colW[c] = LABEL_W + perLine[c] * PITCH + GRP_PAD + 6; x += colW[c];
  }
  var TOTAL_W = x;
  function segHeight(s, c) { return Math.ceil(s.ev.length / perLine[c]) * PITCH + SEG_GAP; }
  var rowH = new Array(nr);
  for (r = 0; r < nr; r++) {
    var h = MIN_ROW_H;
    for (c = 0; c < nc; c++) {
      var hh = GRP_PAD;
      (groups[r * nc + c] || []).forEach(function (s) { hh += segHeight(s, c); });
      if (hh > h) h = hh;
    }
    rowH[r] = h;
  }
  // first evaluation of each row, its depth and label
  var rowFirst = new Array(nr);
  for (i = n - 1; i >= 0; i--) rowFirst[E[i][0]] = i;

  // ---- classes: the set growing in evaluation order; steps = runs of one row and column
  var classSet = new Set(), curve = new Int32Array(n), steps = [], cur = null;
  var firstDefCol = new Map();
  for (i = 0; i < n; i++) {
    var a = E[i];
    if (!cur || cur.row !== a[0] || cur.col !== evCol[i]) {
      cur = { row: a[0], col: evCol[i], first: i, added: [], removed: [], total: 0 };
      steps.push(cur);
    }
    list(a[13]).forEach(function (s) {
      if (!classSet.has(s)) { classSet.add(s); cur.added.push(s); }
      if (!firstDefCol.has(s)) { firstDefCol.set(s, evCol[i]); COLS[evCol[i]].added++; }
    });
    list(a[14]).forEach(function (s) { if (classSet.delete(s)) cur.removed.push(s); });
    cur.total = classSet.size;
    curve[i] = classSet.size;
  }

  // ---- state
  var visibleRows = []; // row indices shown (all, or those with matches)
  var rowTop = new Array(nr);
  var rendered = new Map(); // row -> element
  var selected = -1;
  var matchDef = new Set(), matchUse = new Set(), matchList = [], matchPos = -1, rowMatches = new Map();
  var scroller = document.getElementById('scroller');
  var canvas = document.getElementById('canvas');
  var colhead = document.getElementById('colhead');

  function layoutRows() {
    var only = document.getElementById('only').checked && rowMatches.size > 0;
    visibleRows = [];
    var y = 0;
    for (var r = 0; r < nr; r++) {
      if (only && !rowMatches.has(r)) { rowTop[r] = -1; continue; }
      rowTop[r] = y; y += rowH[r]; visibleRows.push(r);
    }
    canvas.style.height = y + 'px';
    canvas.style.width = TOTAL_W + 'px';
    rendered.forEach(function (e) { e.remove(); });
    rendered.clear();
    render();
  }

  function buildRow(r) {
    var row = el('div', 'row');
    row.dataset.row = String(r);
    row.style.top = rowTop[r] + 'px';
    row.style.height = rowH[r] + 'px';
    row.style.width = TOTAL_W + 'px';
    var path = (ROWS[r] || []).map(str);
    var head = el('div', 'rh');
    head.style.width = HEAD_W + 'px';
    head.style.paddingLeft = (6 + 10 * Math.max(0, path.length - 1)) + 'px';
    head.title = path.join(' \u203a ');
    head.appendChild(el('span', 'bn', bundleOf(r)));
    if (rowMatches.has(r)) head.appendChild(el('span', 'badge', rowMatches.get(r)));
    head.appendChild(el('span', 'cp', path.length > 1 ? 'via ' + path.slice(0, -1).join(' \u203a ') : 'first at #' + (rowFirst[r] + 1)));
    row.appendChild(head);
    for (var c = 0; c < nc; c++) {
      var segs = groups[r * nc + c];
      if (!segs) continue;
      var grp = el('div', 'grp');
      grp.style.left = colX[c] + 'px';
      grp.style.width = colW[c] + 'px';
      grp.style.height = rowH[r] + 'px';
      for (var s = 0; s < segs.length; s++) {
        var seg = el('div', 'seg');
        seg.style.height = segHeight(segs[s], c) + 'px';
        var tn = str(segs[s].type);
        var lab = el('span', 'tl', tn);
        lab.title = tn + ': ' + segs[s].ev.length + ' evaluation' + (segs[s].ev.length === 1 ? '' : 's');
        seg.appendChild(lab);
        var cells = el('span', 'cells');
        cells.style.width = (perLine[c] * PITCH) + 'px';
        var ids = segs[s].ev;
        for (var j = 0; j < ids.length; j++) {
          var id = ids[j];
          var cell = el('span', 'cell o-' + evCat[id]);
          cell.dataset.seq = String(id + 1);
          cell.dataset.outcome = evCat[id];
          cell.title = '#' + (id + 1) + ' ' + tn + ' \'' + str(E[id][4]) + '\' \u2192 ' + (str(E[id][11]) ? 'skipped: ' + str(E[id][11]) : (str(E[id][12]) || 'no outcome'));
          if (matchDef.has(id)) cell.classList.add('hl-def');
          else if (matchUse.has(id)) cell.classList.add('hl-use');
          if (id === selected) cell.classList.add('sel');
          cells.appendChild(cell);
        }
        seg.appendChild(cells);
        grp.appendChild(seg);
      }
      row.appendChild(grp);
    }
    return row;
  }

  // the index in visibleRows of the first row ending below y
  function firstBelow(y) {
    var lo = 0, hi = visibleRows.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1, r = visibleRows[mid];
      if (rowTop[r] + rowH[r] <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function render() {
    var top = scroller.scrollTop - COLHEAD_H - BUFFER;
    var bottom = scroller.scrollTop + scroller.clientHeight + BUFFER;
    var want = new Set();
    for (var k = firstBelow(Math.max(0, top)); k < visibleRows.length; k++) {
      var r = visibleRows[k];
      if (rowTop[r] > bottom) break;
      want.add(r);
    }
    rendered.forEach(function (e, r) { if (!want.has(r)) { e.remove(); rendered.delete(r); } });
    var frag = document.createDocumentFragment();
    want.forEach(function (r) { if (!rendered.has(r)) { var e = buildRow(r); rendered.set(r, e); frag.appendChild(e); } });
    canvas.appendChild(frag);
  }

  // ---- header: title, summary, legend, column heads, class growth chart
  document.getElementById('title').textContent = 'cfsim timeline: ' + D.policy + ' on ' + D.host;
  var counts = {}, skipCounts = {};
  CATS.forEach(function (cat) { counts[cat[0]] = 0; });
  for (i = 0; i < n; i++) {
    counts[evCat[i]]++;
    if (evCat[i] === 'skipped') { var sk = str(E[i][11]); skipCounts[sk] = (skipCounts[sk] || 0) + 1; }
  }
  document.getElementById('summary').textContent = n + ' evaluations \u00b7 ' + nr + ' bundle activations (call paths) \u00b7 ' +
    classSet.size + ' classes defined by the policy \u00b7 exit code ' + D.exit_code + ' \u00b7 ' + D.tool;
  var legend = document.getElementById('legend');
  CATS.forEach(function (cat) {
    var item = el('span', 'lg');
    item.dataset.cat = cat[0];
    var sw = el('span', 'sw o-' + cat[0]);
    item.appendChild(sw);
    item.appendChild(el('span', null, cat[1]));
    item.appendChild(el('small', null, String(counts[cat[0]])));
    var t = cat[2];
    if (cat[0] === 'skipped') {
      t += '\n' + Object.keys(skipCounts).sort().map(function (s) { return s + ': ' + skipCounts[s]; }).join('\n');
    }
    item.title = t;
    legend.appendChild(item);
  });
  var ld = el('span', 'lg'); ld.appendChild(el('span', 'sw hl-def-sw')); ld.appendChild(el('span', null, 'defines the searched name')); legend.appendChild(ld);
  var lu = el('span', 'lg'); lu.appendChild(el('span', 'sw hl-use-sw')); lu.appendChild(el('span', null, 'uses it (guard or promiser)')); legend.appendChild(lu);

  (function columnHeads() {
    colhead.style.width = TOTAL_W + 'px';
    var corner = el('div', 'ch corner');
    corner.style.width = HEAD_W + 'px';
    corner.appendChild(el('b', null, 'bundle'));
    corner.appendChild(el('small', null, 'in call order; indented by call depth'));
    colhead.appendChild(corner);
    COLS.forEach(function (col, c) {
      var h = el('div', 'ch');
      h.style.left = colX[c] + 'px';
      h.style.width = colW[c] + 'px';
      h.title = stageTitle(col.stage, col.pass);
      h.appendChild(el('b', null, stageLabel(col.stage, col.pass)));
      h.appendChild(el('small', null, col.count + ' evals \u00b7 +' + col.added + ' classes'));
      colhead.appendChild(h);
    });
  })();

  var SVGNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  (function growthChart() {
    var box = document.getElementById('growth');
    var W = 1000, H = 58, top = 4, bottom = 14, max = 1;
    for (var i = 0; i < n; i++) if (curve[i] > max) max = curve[i];
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, preserveAspectRatio: 'none', role: 'img' });
    s.appendChild(svg('title', {})).textContent = 'Classes defined by the policy, in evaluation order (click to jump there)';
    // column bands: a shade per stage under the curve
    var shades = { preeval: '#eef2f7', pass: '#f7f9fb', resolve: '#f3eef8' };
    var stepsToDraw = Math.min(steps.length, 4000);
    for (var k = 0; k < stepsToDraw; k++) {
      var st = steps[k], end = k + 1 < steps.length ? steps[k + 1].first : n;
      var x0 = st.first / Math.max(1, n) * W, x1 = end / Math.max(1, n) * W;
      s.appendChild(svg('rect', { x: x0.toFixed(2), y: 0, width: Math.max(0.2, x1 - x0).toFixed(2), height: H - bottom, fill: shades[COLS[st.col].stage] || '#fff' }));
    }
    var pts = [];
    var stride = Math.max(1, Math.floor(n / 2000));
    for (i = 0; i < n; i += stride) {
      pts.push((i / Math.max(1, n) * W).toFixed(1) + ',' + (H - bottom - (curve[i] / max) * (H - bottom - top)).toFixed(1));
    }
    if (n > 0) pts.push(W + ',' + (H - bottom - (curve[n - 1] / max) * (H - bottom - top)).toFixed(1));
    s.appendChild(svg('polyline', { points: pts.join(' '), fill: 'none', stroke: '#0b63c5', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke' }));
    var lab = svg('text', { x: 4, y: H - 3, 'class': 'ax' });
    lab.textContent = 'classes defined so far (0 \u2192 ' + max + ') over the ' + n + ' evaluations; blue-grey: pre-evaluation, violet: resolve stages; click to jump';
    s.appendChild(lab);
    s.addEventListener('click', function (evt) {
      var rect = s.getBoundingClientRect();
      var at = Math.floor((evt.clientX - rect.left) / Math.max(1, rect.width) * n);
      select(Math.max(0, Math.min(n - 1, at)), true);
    });
    box.appendChild(s);
  })();

  // ---- class set, pass by pass (aside): per column, then the steps that changed it
  (function stepsPanel() {
    var box = document.getElementById('steps');
    box.appendChild(el('h2', null, 'Class set, pass by pass'));
    box.appendChild(el('p', 'hint', 'Classes defined by the policy (hard classes not counted). Per stage: evaluations and classes first defined there; then each bundle pass that changed the set, in evaluation order.'));
    var t = el('table');
    var hr = el('tr');
    ['stage', 'evaluations', 'classes added'].forEach(function (h) { hr.appendChild(el('th', null, h)); });
    t.appendChild(hr);
    COLS.forEach(function (col) {
      var tr = el('tr');
      tr.appendChild(el('td', null, stageLabel(col.stage, col.pass)));
      tr.appendChild(el('td', 'n', col.count));
      tr.appendChild(el('td', 'n', '+' + col.added));
      t.appendChild(tr);
    });
    box.appendChild(t);
    steps.forEach(function (st) {
      if (st.added.length === 0 && st.removed.length === 0) return;
      var d = el('details');
      var sum = el('summary');
      sum.appendChild(el('span', null, bundleOf(st.row) + ' \u00b7 ' + stageLabel(COLS[st.col].stage, COLS[st.col].pass) + ' '));
      if (st.added.length) sum.appendChild(el('span', 'added', '+' + st.added.length + ' '));
      if (st.removed.length) sum.appendChild(el('span', 'removed', '\u2212' + st.removed.length + ' '));
      sum.appendChild(el('small', null, '\u2192 ' + st.total + ' (from #' + (st.first + 1) + ')'));
      d.appendChild(sum);
      // filled when opened: the page stays light on the masterfiles
      d.addEventListener('toggle', function () {
        if (!d.open || d.dataset.filled) return;
        d.dataset.filled = '1';
        var p = el('div');
        st.added.forEach(function (c) { p.appendChild(nameButton(str(c), 'added')); });
        st.removed.forEach(function (c) { p.appendChild(nameButton(str(c), 'removed')); });
        d.appendChild(p);
      });
      box.appendChild(d);
    });
  })();

  function nameButton(name, cls) {
    var b = el('button', 'name' + (cls ? ' ' + cls : ''), (cls === 'removed' ? '\u2212' : '') + name);
    b.type = 'button';
    b.title = 'Search for ' + name;
    b.addEventListener('click', function () { setSearch(name); });
    return b;
  }

  // ---- details of one evaluation
  function showDetails(id) {
    var e = ev(id);
    var box = document.getElementById('details');
    box.textContent = '';
    box.appendChild(el('h2', null, 'Evaluation #' + e.seq));
    var dl = el('dl');
    function row(k, v) {
      dl.appendChild(el('dt', null, k));
      var dd = el('dd');
      if (v instanceof Node) dd.appendChild(v); else dd.textContent = v === null || v === undefined ? '\u2014' : String(v);
      dl.appendChild(dd);
      return dd;
    }
    var cat = evCat[id];
    var pill = el('span', 'pill o-' + cat, e.outcome || (e.skip ? 'skipped' : 'no outcome'));
    row('outcome', pill);
    if (e.skip) row('skip reason', e.skip + (SKIP_TEXT[e.skip] ? ' \u2014 ' + SKIP_TEXT[e.skip] : ''));
    row('promise type', e.type);
    row('promiser', el('code', null, e.promiser));
    if (e.written !== null) row('as written', el('code', null, e.written));
    var g = el('span');
    g.appendChild(el('code', null, e.guard));
    g.appendChild(document.createTextNode(' = '));
    g.appendChild(el('span', e.guardValue ? 'true' : 'false', e.guardValue ? 'true' : 'false'));
    row('guard', g);
    row('file:line', el('code', 'mono', e.file + ':' + e.line));
    row('handle', e.handle);
    row('bundle', bundleOf(e.row));
    row('call path', (ROWS[e.row] || []).map(str).join(' \u203a '));
    row('stage', stageLabel(e.stage, e.pass) + (e.stage === 'resolve' ? ' (BundleResolve)' : ''));
    row('iteration', e.iteration === 0 ? '0 (guard false: no binding evaluated)' : e.iteration);
    function names(k, arr, cls) {
      if (!arr.length) return;
      var p = el('span');
      arr.forEach(function (nm) { p.appendChild(nameButton(nm, cls)); });
      row(k, p);
    }
    names('classes set', e.set, 'added');
    names('classes cancelled', e.cancelled, 'removed');
    names('vars set', e.vars, null);
    if (!e.set.length && !e.cancelled.length && !e.vars.length) row('changed', 'nothing');
    row('classes so far', curve[id]);
    box.appendChild(dl);
  }

  function select(id, scroll) {
    if (id < 0 || id >= n) return;
    var old = canvas.querySelector('.cell.sel');
    if (old) old.classList.remove('sel');
    selected = id;
    var r = E[id][0];
    if (scroll) {
      if (rowTop[r] < 0) { document.getElementById('only').checked = false; layoutRows(); }
      var y = rowTop[r] + COLHEAD_H;
      if (y < scroller.scrollTop + COLHEAD_H || y + rowH[r] > scroller.scrollTop + scroller.clientHeight) {
        scroller.scrollTop = Math.max(0, rowTop[r] - 40);
      }
      var cx = colX[evCol[id]];
      if (cx < scroller.scrollLeft + HEAD_W || cx + colW[evCol[id]] > scroller.scrollLeft + scroller.clientWidth) {
        scroller.scrollLeft = Math.max(0, cx - HEAD_W - 20);
      }
      render();
    }
    var cell = canvas.querySelector('.cell[data-seq="' + (id + 1) + '"]');
    if (cell) cell.classList.add('sel');
    showDetails(id);
  }

  canvas.addEventListener('click', function (evt) {
    var t = evt.target;
    if (t instanceof Element && t.classList.contains('cell')) {
      var seq = parseInt(t.dataset.seq || '0', 10);
      if (seq >= 1) select(seq - 1, false);
    }
  });
  var pending = false;
  scroller.addEventListener('scroll', function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; render(); });
  }, { passive: true });
  window.addEventListener('resize', function () { render(); });

  // ---- search: where a class or variable is defined (set, cancelled) and used (guards, promisers)
  function bare(x) { return x.replace(/^[A-Za-z0-9_]+:/, ''); }
  function sameName(candidate, q) {
    if (candidate === q) return true;
    var a = bare(candidate), b = bare(q);
    return a === b || (b.length > 0 && a.length > b.length && a.slice(-b.length - 1) === '.' + b);
  }
  var REF = /\$[({]([^(){}$]+)[)}]/g;
  var useCache = new Map();
  // the class tokens and variable references of a string
  function uses(si) {
    if (useCache.has(si)) return useCache.get(si);
    var s = str(si) || '', refs = [], m;
    REF.lastIndex = 0;
    while ((m = REF.exec(s)) !== null) refs.push(m[1]);
    var toks = s.split(/[^A-Za-z0-9_:]+/).filter(function (t) { return t.length > 0; });
    var u = { toks: toks, refs: refs };
    useCache.set(si, u);
    return u;
  }
  function search(q) {
    matchDef = new Set(); matchUse = new Set(); matchList = []; matchPos = -1; rowMatches = new Map();
    var out = document.getElementById('search-result');
    out.textContent = '';
    if (q) {
      var qb = bare(q), isVar = qb.indexOf('.') >= 0;
      for (var i = 0; i < n; i++) {
        var a = E[i], hit = false;
        [a[13], a[14], a[15]].forEach(function (l) {
          list(l).forEach(function (s) { if (!hit && sameName(str(s), q)) hit = true; });
        });
        if (hit) { matchDef.add(i); } else {
          var srcs = [a[9], a[16] === undefined ? -1 : a[16]];
          for (var k = 0; k < srcs.length && !hit; k++) {
            if (srcs[k] < 0) continue;
            var u = uses(srcs[k]);
            if (k === 0 && !isVar) {
              for (var t = 0; t < u.toks.length; t++) if (bare(u.toks[t]) === qb) { hit = true; break; }
            }
            for (var f = 0; f < u.refs.length && !hit; f++) if (sameName(u.refs[f], q)) hit = true;
          }
          if (hit) matchUse.add(i);
        }
        if (hit) { matchList.push(i); rowMatches.set(a[0], (rowMatches.get(a[0]) || 0) + 1); }
      }
      out.appendChild(el('b', null, q));
      out.appendChild(document.createTextNode(': defined by ' + matchDef.size + ' evaluation' + (matchDef.size === 1 ? '' : 's') +
        ', used by ' + matchUse.size + ' \u00b7 in ' + rowMatches.size + ' bundle' + (rowMatches.size === 1 ? '' : 's') +
        (matchList.length ? ' \u00b7 Enter or \u25b6 for the next' : '')));
      out.dataset.defined = String(matchDef.size);
      out.dataset.used = String(matchUse.size);
    } else {
      delete out.dataset.defined;
      delete out.dataset.used;
    }
    layoutRows();
  }
  function step(dir) {
    if (!matchList.length) return;
    matchPos = (matchPos + dir + matchList.length) % matchList.length;
    select(matchList[matchPos], true);
  }
  var box = document.getElementById('search');
  var timer = 0;
  function setSearch(name) { box.value = name; search(name.trim()); }
  box.addEventListener('input', function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () { search(box.value.trim()); }, n > 3000 ? 150 : 0);
  });
  box.addEventListener('keydown', function (evt) {
    if (evt.key === 'Enter') { evt.preventDefault(); window.clearTimeout(timer); if (box.value.trim() !== lastQuery()) search(box.value.trim()); step(evt.shiftKey ? -1 : 1); }
    if (evt.key === 'Escape') { setSearch(''); }
  });
  function lastQuery() { var b = document.querySelector('#search-result b'); return b ? b.textContent : ''; }
  // the datalist of every defined name, filled on first use
  box.addEventListener('focus', function () {
    var dlist = document.getElementById('names');
    if (dlist.childElementCount) return;
    var seen = new Set();
    for (var i = 0; i < n; i++) [E[i][13], E[i][14], E[i][15]].forEach(function (l) { list(l).forEach(function (s) { seen.add(s); }); });
    var frag = document.createDocumentFragment();
    Array.from(seen).map(str).sort().forEach(function (nm) { var o = el('option'); o.value = nm; frag.appendChild(o); });
    dlist.appendChild(frag);
  });
  document.getElementById('next').addEventListener('click', function () { step(1); });
  document.getElementById('prev').addEventListener('click', function () { step(-1); });
  document.getElementById('only').addEventListener('change', function () { layoutRows(); });

  layoutRows();
  // a link may name a search: page.html#q=NAME (the first match is selected)
  if (window.location.hash.indexOf('#q=') === 0) {
    var q = '';
    try { q = decodeURIComponent(window.location.hash.slice(3)); } catch (err) { q = ''; }
    if (q) { setSearch(q); step(1); }
  }
  // for tests and tools: the numbers the page drew, and a way to draw the rows at the current scroll
  window.cfsimTimeline = { ready: true, events: n, rows: nr, columns: COLS.map(function (c) { return c.key; }), render: render, select: select };
})();
