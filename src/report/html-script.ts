/**
 * The HTML report's script, inlined into the page (allowed by its hash in the CSP). It
 * reads the page data from `#fluxlens-data` and builds the tree and the diff view with
 * createElement and textContent only: every string in the data is untrusted.
 *
 * Kept as plain ES2017 in a string so the page needs no bundler; it must not contain a
 * backtick, `${` or a closing script tag.
 */
export const HTML_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('fluxlens-data').textContent);
  var tree = document.getElementById('tree');
  var detail = document.getElementById('detail');
  var state = { selected: -1, layout: 'unified' };
  var objectButtons = [];
  var ancestors = [];
  var STATUS_SIGNS = { added: '+', removed: '-', changed: '~', moved: '\u21b7' };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function counts(c) {
    var span = el('span', 'counts');
    ['added', 'changed', 'removed', 'moved'].forEach(function (status) {
      if (!c[status]) return;
      var count = el('span', 'count count-' + status, STATUS_SIGNS[status] + c[status]);
      count.title = c[status] + ' ' + status;
      count.appendChild(el('span', 'sr', ' ' + status));
      span.appendChild(document.createTextNode(' '));
      span.appendChild(count);
    });
    return span;
  }

  function setExpanded(button, list, open) {
    button.setAttribute('aria-expanded', open ? 'true' : 'false');
    list.hidden = !open;
  }

  function branch(id, label, c, open) {
    var item = el('li');
    var button = el('button', 'node');
    button.type = 'button';
    button.setAttribute('aria-controls', id);
    // The glyph is decoration: kept out of the accessible name, which starts with the label.
    var twisty = el('span', 'twisty');
    twisty.setAttribute('aria-hidden', 'true');
    button.appendChild(twisty);
    button.appendChild(el('span', 'node-label', label));
    button.appendChild(counts(c));
    var list = el('ul');
    list.id = id;
    setExpanded(button, list, open);
    button.addEventListener('click', function () {
      setExpanded(button, list, button.getAttribute('aria-expanded') !== 'true');
    });
    item.appendChild(button);
    item.appendChild(list);
    return { item: item, button: button, list: list };
  }

  function objectItem(index, path) {
    var object = data.objects[index];
    var item = el('li');
    var button = el('button', 'object');
    button.type = 'button';
    button.appendChild(el('span', 'badge badge-' + object.status, object.status));
    button.appendChild(el('span', 'node-label', object.label));
    if (object.level) {
      var level = el('span', 'level level-' + object.level, object.level);
      level.title = object.findings + (object.findings === 1 ? ' finding' : ' findings');
      button.appendChild(level);
    }
    button.addEventListener('click', function () {
      select(index, false);
    });
    objectButtons[index] = button;
    ancestors[index] = path;
    item.appendChild(button);
    return item;
  }

  function buildTree() {
    clear(tree);
    if (data.clusters.length === 0) {
      tree.appendChild(el('p', 'empty', 'No clusters were analysed.'));
      return;
    }
    var root = el('ul');
    data.clusters.forEach(function (cluster, ci) {
      var label = cluster.path ? cluster.name + ' (' + cluster.path + ')' : cluster.name;
      var c = branch('cluster-' + ci, label, cluster.counts, true);
      var groups = cluster.groups || [];
      if (cluster.producers.length === 0 && groups.length === 0) {
        c.list.appendChild(el('li', 'empty', 'No changes'));
      }
      // The same change in several objects: one branch before the producers.
      groups.forEach(function (group, gi) {
        var g = branch('cluster-' + ci + '-group-' + gi, group.label, group.counts, false);
        g.button.className = 'node same';
        if (group.level) g.button.appendChild(el('span', 'level level-' + group.level, group.level));
        group.objects.forEach(function (index) {
          g.list.appendChild(objectItem(index, [c, g]));
        });
        c.list.appendChild(g.item);
      });
      cluster.producers.forEach(function (producer, pi) {
        var p = branch('cluster-' + ci + '-producer-' + pi, producer.label, producer.counts, false);
        producer.objects.forEach(function (index) {
          p.list.appendChild(objectItem(index, [c, p]));
        });
        c.list.appendChild(p.item);
      });
      root.appendChild(c.item);
    });
    tree.appendChild(root);
  }

  function select(index, reveal) {
    if (!data.objects[index]) return;
    if (state.selected >= 0 && objectButtons[state.selected]) {
      objectButtons[state.selected].removeAttribute('aria-current');
    }
    state.selected = index;
    var button = objectButtons[index];
    button.setAttribute('aria-current', 'true');
    if (reveal) {
      ancestors[index].forEach(function (node) {
        setExpanded(node.button, node.list, true);
      });
      button.scrollIntoView({ block: 'nearest' });
    }
    renderDetail();
    if (reveal) detail.focus();
  }

  function metaRow(list, term, value) {
    list.appendChild(el('dt', '', term));
    var dd = el('dd');
    if (typeof value === 'string') dd.textContent = value;
    else dd.appendChild(value);
    list.appendChild(dd);
  }

  function renderDetail() {
    var object = data.objects[state.selected];
    clear(detail);
    var title = el('h3', '', object.label);
    title.id = 'detail-title';
    detail.appendChild(title);
    var meta = el('dl', 'meta');
    var status = el('span', 'badge badge-' + object.status, object.status);
    metaRow(meta, 'Status', status);
    metaRow(meta, 'Cluster', object.cluster);
    metaRow(meta, 'API version', object.apiVersion);
    metaRow(meta, 'Producer', object.producer);
    if (object.previousProducer) metaRow(meta, 'Moved from', object.previousProducer);
    if (object.file) metaRow(meta, 'File', object.file);
    if (object.fields.length) {
      var fields = el('ul');
      object.fields.forEach(function (field) {
        var item = el('li');
        item.appendChild(el('code', '', field.path));
        item.appendChild(document.createTextNode(' (' + field.change + ')'));
        fields.appendChild(item);
      });
      metaRow(meta, 'Fields', fields);
    }
    detail.appendChild(meta);

    var layout = el('div', 'layout');
    layout.setAttribute('role', 'group');
    layout.setAttribute('aria-label', 'Diff layout');
    var diff = el('div', 'diff');
    diff.id = 'diff';
    [['unified', 'Unified'], ['split', 'Side by side']].forEach(function (choice) {
      var button = el('button', '', choice[1]);
      button.type = 'button';
      button.setAttribute('data-layout', choice[0]);
      button.setAttribute('aria-pressed', state.layout === choice[0] ? 'true' : 'false');
      button.addEventListener('click', function () {
        state.layout = choice[0];
        Array.prototype.forEach.call(layout.children, function (b) {
          b.setAttribute('aria-pressed', b === button ? 'true' : 'false');
        });
        renderDiff(diff, object);
      });
      layout.appendChild(button);
    });
    detail.appendChild(layout);
    detail.appendChild(diff);
    renderDiff(diff, object);
  }

  // Hunks of a unified diff. Lines before the first hunk (---/+++ and similar headers)
  // are dropped; hunk line counts say where a hunk ends, so a removed line that starts
  // with "--" is never taken for a header.
  function parseDiff(text) {
    var hunks = [];
    var hunk = null;
    var oldLeft = 0;
    var newLeft = 0;
    var oldNo = 0;
    var newNo = 0;
    var lines = text.split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.forEach(function (line) {
      var header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (header && oldLeft <= 0 && newLeft <= 0) {
        oldNo = Number(header[1]);
        newNo = Number(header[3]);
        oldLeft = header[2] === undefined ? 1 : Number(header[2]);
        newLeft = header[4] === undefined ? 1 : Number(header[4]);
        hunk = { header: line, lines: [] };
        hunks.push(hunk);
        return;
      }
      if (!hunk) return;
      var sign = line.charAt(0);
      if (sign === '\\') {
        hunk.lines.push({ type: 'meta', text: line });
      } else if (oldLeft <= 0 && newLeft <= 0) {
        hunk = null;
      } else if (sign === '+') {
        hunk.lines.push({ type: 'add', text: line.slice(1), newNo: newNo++ });
        newLeft--;
      } else if (sign === '-') {
        hunk.lines.push({ type: 'del', text: line.slice(1), oldNo: oldNo++ });
        oldLeft--;
      } else {
        hunk.lines.push({ type: 'ctx', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
        oldLeft--;
        newLeft--;
      }
    });
    return hunks;
  }

  function cell(className, text) {
    return el('td', className, text === undefined ? '' : String(text));
  }

  function wideRow(className, text, span) {
    var row = el('tr', className);
    var td = cell('', text);
    td.colSpan = span;
    row.appendChild(td);
    return row;
  }

  // Column widths come from a colgroup: with a fixed layout the first row would decide them,
  // and that is the header, whose cells span several columns.
  function columns(table, classes) {
    var group = el('colgroup');
    classes.forEach(function (className) {
      group.appendChild(el('col', className));
    });
    table.appendChild(group);
  }

  function headRow(labels) {
    var thead = el('thead');
    var row = el('tr');
    labels.forEach(function (label) {
      var th = el('th', label[1], label[0]);
      th.colSpan = label[2];
      row.appendChild(th);
    });
    thead.appendChild(row);
    return thead;
  }

  function unified(hunks) {
    var table = el('table', 'diff-table unified');
    columns(table, ['num', 'num', 'code']);
    table.appendChild(headRow([['base ' + data.base + ' \u2192 head ' + data.head, '', 3]]));
    var body = el('tbody');
    hunks.forEach(function (hunk) {
      body.appendChild(wideRow('hunk', hunk.header, 3));
      hunk.lines.forEach(function (line) {
        if (line.type === 'meta') {
          body.appendChild(wideRow('meta-line', line.text, 3));
          return;
        }
        var row = el('tr', line.type);
        var sign = line.type === 'add' ? '+' : line.type === 'del' ? '-' : ' ';
        row.appendChild(cell('num', line.oldNo));
        row.appendChild(cell('num', line.newNo));
        row.appendChild(cell('code', sign + line.text));
        body.appendChild(row);
      });
    });
    table.appendChild(body);
    return table;
  }

  function splitRow(base, head) {
    var row = el('tr');
    row.appendChild(cell('num', base ? base.oldNo : undefined));
    row.appendChild(cell('code side-base ' + (base ? base.type : 'empty'), base ? base.text : ''));
    row.appendChild(cell('num', head ? head.newNo : undefined));
    row.appendChild(cell('code side-head ' + (head ? head.type : 'empty'), head ? head.text : ''));
    return row;
  }

  function split(hunks) {
    var table = el('table', 'diff-table split');
    columns(table, ['num', 'code', 'num', 'code']);
    table.appendChild(headRow([['base ' + data.base, 'side-base-title', 2], ['head ' + data.head, 'side-head-title', 2]]));
    var body = el('tbody');
    hunks.forEach(function (hunk) {
      body.appendChild(wideRow('hunk', hunk.header, 4));
      var dels = [];
      var adds = [];
      function flush() {
        for (var i = 0; i < Math.max(dels.length, adds.length); i++) {
          body.appendChild(splitRow(dels[i], adds[i]));
        }
        dels = [];
        adds = [];
      }
      hunk.lines.forEach(function (line) {
        if (line.type === 'del') {
          if (adds.length) flush();
          dels.push(line);
        } else if (line.type === 'add') {
          adds.push(line);
        } else {
          flush();
          if (line.type === 'meta') body.appendChild(wideRow('meta-line', line.text, 4));
          else body.appendChild(splitRow(line, line));
        }
      });
      flush();
    });
    table.appendChild(body);
    return table;
  }

  function renderDiff(container, object) {
    clear(container);
    var hunks = parseDiff(object.diff);
    if (hunks.length === 0) {
      container.className = 'no-diff';
      if (object.diff === '') {
        container.textContent = object.status === 'moved'
          ? 'Moved without a content change.'
          : 'No content change.';
      } else {
        var pre = el('pre', 'mono', object.diff);
        container.appendChild(pre);
      }
      return;
    }
    container.className = 'diff';
    container.appendChild(state.layout === 'split' ? split(hunks) : unified(hunks));
  }

  buildTree();
  detail.tabIndex = -1;
  Array.prototype.forEach.call(document.querySelectorAll('button[data-object]'), function (button) {
    button.addEventListener('click', function () {
      select(Number(button.getAttribute('data-object')), true);
    });
  });
})();
`;
