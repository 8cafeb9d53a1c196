// The dashboard's pages beyond the overview, a queue and a job: batches, recurring jobs, rate
// limits, finding a job, and bulk actions on the dead and delayed jobs of a queue. Drawn with the
// helpers of app.js (window.QueueDashboard), text always set as text.
(function () {
  'use strict';

  var MAX_BULK = 100;
  // the selection of jobs for a bulk action: of one queue and tab, kept across redraws
  var selection = { where: '', ids: {} };
  // what the search box holds, kept across redraws
  var draft = null;

  function D() { return window.QueueDashboard; }

  function enc(text) { return encodeURIComponent(text); }

  function post(path, body, question) {
    var s = D().settings();
    if (s.readOnly) return Promise.resolve(null);
    if (!window.confirm(question)) return Promise.resolve(null);
    var headers = { Accept: 'application/json', 'X-Queue-Dashboard': '1' };
    if (body) headers['Content-Type'] = 'application/json';
    if (s.csrf) headers[s.csrf.headerName] = s.csrf.token;
    return fetch('api/' + path, { method: 'POST', credentials: 'same-origin', headers: headers,
      body: body ? JSON.stringify(body) : undefined })
      .then(D().answer)
      .then(function (result) { D().flash(result.message, !!(result.failed && result.failed.length)); return result; })
      .catch(function (e) { D().flash(e.message, true); return null; })
      .then(function (result) { D().refresh(); return result; });
  }

  function progress(done, total) {
    var h = D().h;
    var pct = total > 0 ? Math.round((done / total) * 100) : 0;
    var fill = h('span');
    fill.style.width = pct + '%';
    return [h('span', { 'class': 'progress', title: done + ' of ' + total }, fill), ' ' + pct + '%'];
  }

  function table(id, heads, rows, numeric) {
    var h = D().h;
    return h('div', { 'class': 'panel' }, h('table', { id: id },
      h('thead', null, h('tr', null, heads.map(function (t, i) {
        return h('th', { 'class': numeric && numeric.indexOf(i) >= 0 ? 'num' : null, text: t });
      }))),
      h('tbody', null, rows)));
  }

  function markNav(name) {
    var links = document.querySelectorAll('#pages a');
    for (var i = 0; i < links.length; i++) {
      links[i].className = links[i].getAttribute('href') === '#/' + name ? 'on' : '';
    }
  }

  // ---- batches ---------------------------------------------------------------------------

  function batchesChooser(data) {
    var h = D().h;
    D().crumbs([['Batches', null]]);
    var rows = data.queues.map(function (q) {
      return h('tr', { 'data-queue': q.name }, h('td', null, h('a', { href: '#/batches/' + enc(q.name), text: q.name })),
        h('td', { 'class': 'num', text: q.openBatches }));
    });
    return [h('h1', { text: 'Batches' }), h('p', { 'class': 'muted', text: 'Pick a queue to see its open and recently finished batches.' }),
      data.queues.length === 0 ? h('p', { 'class': 'empty', text: 'No queue has seen a job yet.' })
        : table('batch-queues', ['Queue', 'Open batches'], rows, [1])];
  }

  function batchRows(queue, batches, finished) {
    var h = D().h;
    var readOnly = D().settings().readOnly;
    return batches.map(function (b) {
      var ended = b.completed + b.dead + b.cancelled;
      var cancel = null;
      if (!finished && !readOnly && b.state !== 'CANCELLING') {
        cancel = h('button', { 'class': 'danger', 'data-action': 'cancel-batch', text: 'Cancel', onclick: function () {
          post('queues/' + enc(queue) + '/batches/' + enc(b.id) + '/cancel', null,
            'Cancel batch ' + b.id + ' of queue "' + queue + '"? Its waiting sub-jobs are removed; running ones finish.');
        } });
      }
      return h('tr', { 'data-batch': b.id }, h('td', { text: b.id }),
        h('td', null, h('span', { 'class': 'badge ' + b.state, text: b.state })),
        h('td', null, progress(ended, b.total)),
        h('td', { 'class': 'num', text: b.total }), h('td', { 'class': 'num', text: b.completed }),
        h('td', { 'class': 'num', 'data-count': 'dead', text: b.dead }), h('td', { 'class': 'num', text: b.cancelled }),
        h('td', { 'class': 'num', text: b.active }), h('td', { 'class': 'num', 'data-count': 'waiting', text: b.waiting }),
        h('td', { 'class': 'num', text: b.maxConcurrency || '' }), h('td', { text: D().time(b.createdAt) }),
        finished ? null : h('td', null, cancel));
    });
  }

  function batchesView(r, data) {
    var h = D().h;
    D().crumbs([['Batches', '#/batches'], [data.queue, null]]);
    var heads = ['Batch', 'State', 'Progress', 'Total', 'Completed', 'Dead', 'Cancelled', 'Running', 'Waiting at the cap', 'Cap', 'Opened'];
    var numeric = [3, 4, 5, 6, 7, 8, 9];
    var pager = h('div', { 'class': 'bar' },
      h('span', { 'class': 'muted', text: data.open.length === 0 ? 'No open batch.'
        : 'Open batches ' + (data.offset + 1) + '\u2013' + (data.offset + data.open.length) + ' of ' + data.openTotal + ', oldest first' }),
      data.offset > 0 ? h('a', { href: '#/batches/' + enc(data.queue) + '?offset=' + Math.max(0, data.offset - data.count), text: '\u2190 previous' }) : null,
      data.offset + data.open.length < data.openTotal ? h('a', { href: '#/batches/' + enc(data.queue) + '?offset=' + (data.offset + data.count), 'data-page': 'next', text: 'next \u2192' }) : null);
    return [
      h('h1', null, h('span', { text: 'Batches of ' + data.queue }),
        h('a', { href: D().queueLink(data.queue), 'class': 'muted', text: 'queue \u2192' })),
      h('h2', { text: 'Open' }), pager,
      data.open.length ? table('open-batches', heads.concat(['']), batchRows(data.queue, data.open, false), numeric)
        : h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', text: 'No open batch.' })),
      h('h2', { text: 'Recently finished (kept for their retention)' }),
      data.finished.length ? table('finished-batches', heads, batchRows(data.queue, data.finished, true), numeric)
        : h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', text: 'No finished batch kept.' }))
    ];
  }

  // ---- schedules -------------------------------------------------------------------------

  function schedulesView(data) {
    var h = D().h;
    D().crumbs([['Schedules', null]]);
    var rows = data.schedules.map(function (s) {
      return h('tr', { 'data-schedule': s.name }, h('td', { text: s.name }),
        h('td', null, h('a', { href: D().queueLink(s.queue), text: s.queue })),
        h('td', null, h('code', { text: s.cron })), h('td', { text: s.zone }),
        h('td', { 'data-field': 'last', text: s.lastTick === null ? 'never' : D().time(s.lastTick) + ' (' + D().ago(s.serverTime - s.lastTick) + ' ago)' }),
        h('td', { 'data-field': 'next', text: s.nextTick === null ? 'none' : D().time(s.nextTick) + ' (in ' + D().ago(Math.max(0, s.nextTick - s.serverTime)) + ')' }),
        h('td', { 'data-field': 'missed', text: s.missed }), h('td', { 'class': 'num', text: D().ago(s.graceMillis) }));
    });
    return [h('h1', { text: 'Recurring jobs' }),
      h('p', { 'class': 'muted', text: 'The schedules this application declares. Ticks are by the Redis clock; the last tick is the one any instance handled.' }),
      data.schedules.length === 0
        ? h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', text: data.enabled ? 'No recurring job is declared.' : 'Recurring jobs are not enabled in this application.' }))
        : table('schedules', ['Schedule', 'Queue', 'Cron', 'Zone', 'Last tick', 'Next tick', 'Missed ticks', 'Grace'], rows, [7])];
  }

  // ---- rate limits -----------------------------------------------------------------------

  function rateLimitsView(data) {
    var h = D().h;
    D().crumbs([['Rate limits', null]]);
    var rows = data.queues.map(function (q) {
      var used = q.limit ? h('td', null, progress(q.handedOut, q.permits), ' ' + q.handedOut + ' of ' + q.permits) : h('td', { 'class': 'muted', text: '\u2013' });
      return h('tr', { 'data-queue': q.queue }, h('td', null, h('a', { href: D().queueLink(q.queue), text: q.queue })),
        h('td', { 'data-field': 'limit', text: q.limit || 'none' }), used,
        h('td', { 'data-field': 'next', text: q.nextHandOut === null ? (q.limit ? 'now' : '') : 'in ' + D().ago(Math.max(0, q.nextHandOut - q.serverTime)) }),
        h('td', { 'class': 'num', 'data-field': 'limited', text: q.limitedCalls }),
        h('td', { 'class': 'num', 'data-field': 'held', text: q.heldBack }));
    });
    return [h('h1', { text: 'Rate limits' }),
      h('p', { 'class': 'muted', text: 'Limits as this application\'s settings give them, hand-outs within the last window (Redis clock), and since the queue\'s counters began: the reserve calls the limit cut short while jobs were ready, and the ready jobs they did not get.' }),
      data.cut ? h('p', { 'class': 'muted', text: 'Only the first queues are shown.' }) : null,
      data.queues.length === 0 ? h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', text: 'No queue has seen a job yet.' }))
        : table('rate-limits', ['Queue', 'Limit', 'Used in the window', 'Next hand-out', 'Calls cut short', 'Jobs asked for, held back'], rows, [4, 5])];
  }

  // ---- finding a job ---------------------------------------------------------------------

  function findLink(queue, by, key) {
    return '#/find?queue=' + enc(queue) + '&by=' + enc(by) + '&key=' + enc(key);
  }

  function findForm(r) {
    var h = D().h;
    if (!draft || draft.hash !== location.hash) draft = { hash: location.hash, queue: r.query.queue || '', by: r.query.by || 'id', key: r.query.key || '' };
    var queue = h('input', { id: 'find-queue', placeholder: 'queue', value: draft.queue, size: 16 });
    var by = h('select', { id: 'find-by' }, [['id', 'job id'], ['unique', 'uniqueness key'], ['idempotency', 'idempotency key']].map(function (o) {
      return h('option', { value: o[0], selected: o[0] === draft.by, text: o[1] });
    }));
    var key = h('input', { id: 'find-key', placeholder: 'id or key', value: draft.key, size: 40 });
    queue.addEventListener('input', function () { draft.queue = queue.value; });
    by.addEventListener('change', function () { draft.by = by.value; });
    key.addEventListener('input', function () { draft.key = key.value; });
    function go() {
      if (!queue.value || !key.value) { D().flash('Give a queue and an id or key', true); return; }
      location.hash = findLink(queue.value.trim(), by.value, key.value.trim());
    }
    key.addEventListener('keydown', function (e) { if (e.key === 'Enter') go(); });
    return h('div', { 'class': 'bar' }, queue, by, key, h('button', { id: 'find-go', text: 'Find', onclick: go }));
  }

  function findView(r, data) {
    var h = D().h;
    D().crumbs([['Find a job', null]]);
    var out = [h('h1', { text: 'Find a job' }), findForm(r)];
    if (!data) {
      out.push(h('p', { 'class': 'muted', text: 'Find a job of a queue by its id, the uniqueness key it holds, or the idempotency key that names it.' }));
      return out;
    }
    if (data.error) {
      out.push(h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', id: 'find-error', text: data.error })));
      return out;
    }
    if (!data.job) {
      out.push(h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', id: 'find-none', text: data.id
        ? 'Job ' + data.id + ' of queue "' + data.queue + '" does not exist (any more).'
        : 'No job of queue "' + data.queue + '" holds ' + (data.by === 'unique' ? 'uniqueness' : 'idempotency') + ' key "' + data.key + '".' })));
      return out;
    }
    var job = data.job;
    var d = job.detail;
    var fields = [['Job', h('a', { href: D().jobLink(d.queue, d.id), id: 'found-job', text: d.id })],
      ['State', h('span', { 'class': 'badge ' + d.state, id: 'found-state', text: d.state })],
      ['Attempts', d.attempts + ' of ' + d.maxAttempts], ['Losses', job.losses],
      ['Uniqueness key', job.uniqueKey || ''], ['Batch', job.batch || ''], ['Group', job.group || '']];
    out.push(h('div', { 'class': 'panel' }, h('dl', { 'class': 'fields' }, fields.filter(function (f) { return f[1] !== ''; })
      .map(function (f) { return [h('dt', { text: f[0] }), h('dd', null, f[1])]; }))));
    out.push(h('h2', { text: 'History, as the job\'s record keeps it' }));
    out.push(table('job-history', ['When', 'What', 'Detail'], job.events.map(function (e) {
      return h('tr', { 'data-event': e.what }, h('td', { text: e.at === null ? '' : D().time(e.at) }), h('td', { text: e.what }),
        h('td', { 'class': 'wrap', text: e.detail }));
    })));
    if (d.lastError) out.push([h('h2', { text: 'Last error' }), h('pre', { id: 'found-error', text: d.lastError })]);
    return out;
  }

  // ---- bulk actions on a queue's dead and delayed jobs -----------------------------------

  function selected() { return Object.keys(selection.ids); }

  function decorateQueue(r, view) {
    var h = D().h;
    if (D().settings().readOnly || (r.state !== 'dead' && r.state !== 'delayed')) return;
    var where = r.queue + '/' + r.state;
    if (selection.where !== where) selection = { where: where, ids: {} };
    var tableEl = view.querySelector('table#jobs');
    if (!tableEl) { selection.ids = {}; return; }
    var present = {};
    var boxes = [];
    var count = h('span', { 'class': 'muted', id: 'bulk-count' });
    function update() {
      var n = selected().length;
      count.textContent = n + ' selected';
      bar.querySelectorAll('button').forEach(function (b) { b.disabled = n === 0; });
    }
    tableEl.querySelectorAll('tbody tr[data-job]').forEach(function (row) {
      var id = row.getAttribute('data-job');
      present[id] = true;
      var box = h('input', { type: 'checkbox', 'data-select': id, 'aria-label': 'Select job ' + id, checked: !!selection.ids[id] });
      box.addEventListener('change', function () {
        if (box.checked) selection.ids[id] = true; else delete selection.ids[id];
        update();
      });
      boxes.push(box);
      row.insertBefore(h('td', null, box), row.firstChild);
    });
    // jobs gone from the page leave the selection
    selected().forEach(function (id) { if (!present[id]) delete selection.ids[id]; });
    var all = h('input', { type: 'checkbox', 'data-select': 'all', 'aria-label': 'Select every job of the page' });
    all.addEventListener('change', function () {
      boxes.forEach(function (b) { b.checked = all.checked; if (all.checked) selection.ids[b.getAttribute('data-select')] = true; else delete selection.ids[b.getAttribute('data-select')]; });
      update();
    });
    var head = tableEl.querySelector('thead tr');
    if (head) head.insertBefore(h('th', null, all), head.firstChild);
    var path = 'queues/' + enc(r.queue) + '/bulk/';
    function bulk(action, verb) {
      var ids = selected();
      if (ids.length > MAX_BULK) { D().flash('Select at most ' + MAX_BULK + ' jobs for one action', true); return; }
      post(path + action, { ids: ids, state: r.state }, verb + ' ' + ids.length + ' ' + r.state + ' job(s) of queue "' + r.queue + '"?')
        .then(function (result) {
          if (!result) return;
          // the page may not be drawn again (the same data): its boxes are unticked here
          selection.ids = {};
          boxes.forEach(function (b) { b.checked = false; });
          all.checked = false;
          update();
        });
    }
    var bar = h('div', { 'class': 'bar', id: 'bulk' }, count,
      r.state === 'dead' ? h('button', { 'data-action': 'bulk-retry', text: 'Retry selected', onclick: function () { bulk('retry', 'Put back in the queue'); } }) : null,
      r.state === 'delayed' ? h('button', { 'data-action': 'bulk-promote', text: 'Run selected now', onclick: function () { bulk('promote', 'Run now'); } }) : null,
      h('button', { 'class': 'danger', 'data-action': 'bulk-delete', text: 'Delete selected', onclick: function () { bulk('delete', 'Delete (cannot be undone)'); } }));
    var panel = tableEl.closest('.panel') || tableEl;
    panel.parentNode.insertBefore(bar, panel);
    update();
  }

  // ---- routing (called by app.js) --------------------------------------------------------

  window.QueuePages = {
    route: function (parts, query) {
      var view = null;
      if (parts[0] === 'batches' && parts[1]) {
        var offset = Math.max(0, parseInt(query.offset || '0', 10) || 0);
        var queue = parts[1];
        view = { name: 'batches', load: function () { return D().api('batches/' + enc(queue) + '?offset=' + offset); },
          draw: function (data) { return batchesView(this, data); } };
      }
      else if (parts[0] === 'batches') {
        view = { name: 'batches', load: function () { return D().api('overview'); }, draw: batchesChooser };
      }
      else if (parts[0] === 'schedules') {
        view = { name: 'schedules', load: function () { return D().api('schedules'); }, draw: schedulesView };
      }
      else if (parts[0] === 'rate-limits') {
        view = { name: 'rate-limits', load: function () { return D().api('rate-limits'); }, draw: rateLimitsView };
      }
      else if (parts[0] === 'find') {
        var r = { query: query };
        view = { name: 'find', load: function () {
          if (!query.queue || !query.key) return Promise.resolve(null);
          return D().api('find?queue=' + enc(query.queue) + '&by=' + enc(query.by || 'id') + '&key=' + enc(query.key))
            .catch(function (e) { return { error: e.message }; });
        }, draw: function (data) { return findView(r, data); } };
      }
      if (view) view.view = 'page';
      return view;
    },
    drawn: function (r, data, view) {
      markNav(r.view === 'page' ? r.name : '');
      if (r.view === 'queue') {
        var title = view.querySelector('h1');
        if (title) title.appendChild(D().h('a', { href: '#/batches/' + enc(r.queue), 'class': 'muted', 'data-link': 'batches', text: 'batches \u2192' }));
        decorateQueue(r, view);
      }
    }
  };
})();
