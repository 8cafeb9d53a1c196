// The queue dashboard: one page, routed by the location's hash, drawn with DOM calls only (text
// from Redis is always set as text, never parsed as HTML), refreshed on a timer.
(function () {
  'use strict';

  var STATES = [['ready', 'Ready'], ['delayed', 'Delayed'], ['active', 'In flight'], ['dead', 'Dead']];
  var PAGE = 25;
  var settings = { readOnly: true, refreshMillis: 3000, csrf: null, user: '' };
  var timer = null;
  var drawing = 0;
  var lastDrawn = '';

  // ---- building blocks -------------------------------------------------------------------

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (name) {
        var value = attrs[name];
        if (value === null || value === undefined || value === false) return;
        if (name === 'text') el.textContent = String(value);
        else if (name === 'onclick') el.addEventListener('click', value);
        else el.setAttribute(name, value === true ? '' : String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }

  function append(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(el, c); }); return; }
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }

  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }

  function time(ms) {
    if (ms === null || ms === undefined) return '';
    var d = new Date(ms);
    return d.toLocaleString(undefined, { hour12: false });
  }

  function ago(ms) {
    if (ms === null || ms === undefined) return '';
    var s = Math.round(ms / 1000);
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  function rate(perSecond) {
    if (!perSecond) return '0/s';
    return (perSecond >= 10 ? Math.round(perSecond) : perSecond.toFixed(perSecond >= 1 ? 1 : 2)) + '/s';
  }

  // a chart of a queue's jobs completed and failed per step over the last 24 hours (c as the API
  // gives it: start, stepMillis, completed[], failed[]), with labelled axes: hours on x, the
  // count per step on y (0 and the peak); big on a queue's page, small on the overview
  function spark(c, big) {
    var ns = 'http://www.w3.org/2000/svg';
    var w = big ? 1000 : 200, hgt = big ? 190 : 56;
    var left = big ? 46 : 30, right = big ? 14 : 8, top = big ? 14 : 8, bottom = big ? 22 : 15;
    var font = big ? 11 : 9;
    function el(tag, attrs, text) {
      var e = document.createElementNS(ns, tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      if (text !== undefined) e.textContent = String(text);
      return e;
    }
    var svg = el('svg', { 'class': 'chart' + (big ? ' big' : ''), width: w, height: hgt, viewBox: '0 0 ' + w + ' ' + hgt, role: 'img' });
    if (!c || !c.completed || c.completed.length === 0) return svg;
    var n = c.completed.length, pw = w - left - right, ph = hgt - top - bottom, span = n * c.stepMillis;
    var max = Math.max.apply(null, c.completed.concat(c.failed).concat([1]));
    var unit = c.stepMillis === 60000 ? 'per minute' : 'per ' + Math.round(c.stepMillis / 60000) + ' min';
    var x = function (i) { return left + (n > 1 ? i / (n - 1) : 0) * pw; };
    var y = function (v) { return top + ph - (v / max) * ph; };
    svg.setAttribute('data-max', max);
    svg.setAttribute('data-step', c.stepMillis);
    svg.setAttribute('data-current-completed', c.completed[n - 1]);
    svg.setAttribute('data-current-failed', c.failed[n - 1]);
    svg.appendChild(el('title', {}, 'Jobs completed and failed ' + unit + ', last 24 hours (peak ' + max + '); now: '
      + c.completed[n - 1] + ' completed, ' + c.failed[n - 1] + ' failed'));
    for (var t = Math.ceil(c.start / 3600000) * 3600000; t < c.start + span; t += 3600000) {
      var hour = new Date(t).getHours();
      if (hour % (big ? 3 : 8) !== 0) continue;
      var xt = left + ((t - c.start) / span) * pw;
      svg.appendChild(el('line', { 'class': 'grid', x1: xt, x2: xt, y1: top, y2: top + ph + 3 }));
      svg.appendChild(el('text', { 'class': 'label', 'data-axis': 'x', x: xt, y: hgt - 2, 'text-anchor': 'middle', 'font-size': font },
        (hour < 10 ? '0' : '') + hour + ':00'));
    }
    svg.appendChild(el('line', { 'class': 'axis', x1: left, x2: left, y1: top, y2: top + ph }));
    svg.appendChild(el('line', { 'class': 'axis', x1: left, x2: left + pw, y1: top + ph, y2: top + ph }));
    svg.appendChild(el('text', { 'class': 'label', 'data-axis': 'y-max', x: left - 4, y: top + font * 0.4, 'text-anchor': 'end', 'font-size': font }, max));
    svg.appendChild(el('text', { 'class': 'label', 'data-axis': 'y-min', x: left - 4, y: top + ph, 'text-anchor': 'end', 'font-size': font }, 0));
    if (big) svg.appendChild(el('text', { 'class': 'label', x: left + 6, y: top + font * 0.4, 'font-size': font }, 'jobs ' + unit));
    [['failed', c.failed], ['completed', c.completed]].forEach(function (series) {
      var points = series[1].map(function (v, i) { return x(i).toFixed(1) + ',' + y(v).toFixed(1); });
      svg.appendChild(el('polyline', { 'class': series[0], 'data-series': series[0], points: points.join(' ') }));
    });
    return svg;
  }

  // the legend under a queue's chart: the series and the current minute's counts
  function chartLegend(c) {
    if (!c || !c.completed || c.completed.length === 0) return null;
    var n = c.completed.length;
    return h('div', { 'class': 'legend' },
      h('span', { 'class': 'key completed', text: 'completed' }), h('span', { 'class': 'key failed', text: 'failed' }),
      h('span', { 'class': 'muted', id: 'chart-now', text: 'this minute: ' + c.completed[n - 1] + ' completed, ' + c.failed[n - 1] + ' failed' }));
  }

  function flash(message, error) {
    var el = document.getElementById('flash');
    el.textContent = message;
    el.className = error ? 'error' : '';
    el.hidden = false;
  }

  // ---- talking to the server -------------------------------------------------------------

  function api(path) {
    return fetch('api/' + path, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(answer);
  }

  function act(path, question) {
    if (settings.readOnly) return Promise.resolve();
    if (!window.confirm(question)) return Promise.resolve();
    var headers = { Accept: 'application/json', 'X-Queue-Dashboard': '1' };
    if (settings.csrf) headers[settings.csrf.headerName] = settings.csrf.token;
    return fetch('api/' + path, { method: 'POST', credentials: 'same-origin', headers: headers })
      .then(answer)
      .then(function (result) { flash(result.message); return refresh(); })
      .catch(function (e) { flash(e.message, true); });
  }

  function answer(response) {
    var live = document.getElementById('live');
    return response.text().then(function (body) {
      var data = null;
      try { data = body ? JSON.parse(body) : null; } catch (e) { data = null; }
      if (!response.ok) {
        live.className = 'live stale';
        var failure = new Error((data && data.error) || ('HTTP ' + response.status));
        failure.status = response.status;
        throw failure;
      }
      live.className = 'live';
      if (data && data.settings) applySettings(data.settings);
      return data;
    });
  }

  function applySettings(s) {
    var changed = s.refreshMillis !== settings.refreshMillis;
    settings = s;
    document.getElementById('user').textContent = s.user || '';
    var mode = document.getElementById('mode');
    mode.textContent = s.readOnly ? 'read-only' : '';
    mode.hidden = !s.readOnly;
    if (changed) schedule();
  }

  // ---- routing ---------------------------------------------------------------------------

  function route() {
    var hash = location.hash.replace(/^#\/?/, '');
    var query = {};
    var at = hash.indexOf('?');
    if (at >= 0) {
      hash.substring(at + 1).split('&').forEach(function (pair) {
        var kv = pair.split('=');
        if (kv[0]) query[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1] || '');
      });
      hash = hash.substring(0, at);
    }
    var parts = hash.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'queue' && parts[1] && parts[2] === 'job' && parts[3]) {
      return { view: 'job', queue: parts[1], id: parts[3] };
    }
    if (parts[0] === 'queue' && parts[1]) {
      return { view: 'queue', queue: parts[1], state: parts[2] || 'ready', order: query.order || 'oldest',
        offset: Math.max(0, parseInt(query.offset || '0', 10) || 0) };
    }
    var page = window.QueuePages && window.QueuePages.route(parts, query);
    if (page) return page;
    return { view: 'overview' };
  }

  function queueLink(queue, state, order, offset) {
    var link = '#/queue/' + encodeURIComponent(queue) + '/' + (state || 'ready');
    var query = [];
    if (order && order !== 'oldest') query.push('order=' + order);
    if (offset) query.push('offset=' + offset);
    return link + (query.length ? '?' + query.join('&') : '');
  }

  function jobLink(queue, id) {
    return '#/queue/' + encodeURIComponent(queue) + '/job/' + encodeURIComponent(id);
  }

  function crumbs(items) {
    var nav = document.getElementById('crumbs');
    clear(nav);
    items.forEach(function (item) {
      append(nav, h('span', { 'class': 'muted', text: '/' }));
      append(nav, item[1] ? h('a', { href: item[1], text: item[0] }) : h('span', { text: item[0] }));
    });
  }

  function refresh() {
    var r = route();
    var ticket = ++drawing;
    var load = r.view === 'page' ? r.load() : r.view === 'job' ? api('queues/' + encodeURIComponent(r.queue) + '/jobs/' + encodeURIComponent(r.id))
      : r.view === 'queue' ? api('queues/' + encodeURIComponent(r.queue) + '?state=' + r.state + '&order=' + r.order
        + '&offset=' + r.offset + '&count=' + PAGE)
        : api('overview');
    return load.then(function (data) {
      if (ticket !== drawing) return;
      // the same answer for the same place draws nothing again (selection and scrolling stay)
      var key = location.hash + '\n' + JSON.stringify(data);
      if (key === lastDrawn) return;
      lastDrawn = key;
      var view = document.getElementById('view');
      var next = r.view === 'page' ? r.draw(data) : r.view === 'job' ? jobView(r, data) : r.view === 'queue' ? queueView(r, data) : overviewView(data);
      clear(view);
      append(view, next);
      if (window.QueuePages) window.QueuePages.drawn(r, data, view);
    }).catch(function (e) {
      if (ticket !== drawing) return;
      if (r.view === 'job' && e.status === 404) { jobGone(r, e.message); return; }
      flash(e.message, true);
    });
  }

  function schedule() {
    if (timer) clearInterval(timer);
    timer = setInterval(function () { if (!document.hidden) refresh(); }, settings.refreshMillis || 3000);
  }

  // ---- views -----------------------------------------------------------------------------

  function overviewView(data) {
    crumbs([['Queues', null]]);
    var rows = data.queues.map(function (q) {
      return h('tr', { 'data-queue': q.name },
        h('td', null, h('a', { href: queueLink(q.name), text: q.name })),
        h('td', null, h('span', { 'class': 'badge ' + (q.paused ? 'paused' : 'running'), text: q.paused ? 'paused' : 'running' })),
        h('td', { 'class': 'num', 'data-count': 'ready' }, h('a', { href: queueLink(q.name, 'ready'), text: q.ready })),
        h('td', { 'class': 'num', 'data-count': 'delayed' }, h('a', { href: queueLink(q.name, 'delayed'), text: q.delayed })),
        h('td', { 'class': 'num' + (q.batchWaiting > 0 ? ' held' : ''), 'data-count': 'batchWaiting', text: q.batchWaiting }),
        h('td', { 'class': 'num' + (q.groupWaiting > 0 ? ' held' : ''), 'data-count': 'groupWaiting', text: q.groupWaiting }),
        h('td', { 'class': 'num', 'data-count': 'inFlight' }, h('a', { href: queueLink(q.name, 'active'), text: q.inFlight })),
        h('td', { 'class': 'num', 'data-count': 'dead' }, h('a', { href: queueLink(q.name, 'dead', 'newest'), text: q.dead })),
        h('td', { 'class': 'num', 'data-count': 'completed', title: q.completed + ' completed job(s) still retained', text: q.completedTotal }),
        h('td', { 'class': 'num', 'data-count': 'failed', text: q.failedTotal }),
        h('td', { 'class': 'num', 'data-count': 'headAge', text: q.headAgeMillis === null ? '' : ago(q.headAgeMillis) }),
        h('td', { 'class': 'num', 'data-count': 'throughput', text: rate(q.throughput) }),
        h('td', null, spark(q.chart, false)));
    });
    var workers = data.workers.map(function (w) {
      return h('tr', { 'data-worker': w.id },
        h('td', { text: w.id }), h('td', { text: w.host }), h('td', { 'class': 'wrap', text: w.queues.join(', ') }),
        h('td', { 'class': 'num', text: w.runningJobs }), h('td', { text: time(w.startedAt) }),
        h('td', { text: w.lastSeen ? ago(data.serverTime - w.lastSeen) + ' ago' : '' }));
    });
    return [
      h('h1', { text: 'Queues' }),
      h('div', { 'class': 'panel' }, data.queues.length === 0 ? h('p', { 'class': 'empty', text: 'No queue has seen a job yet.' })
        : h('table', { id: 'queues' },
          h('thead', null, h('tr', null, ['Queue', 'State'].map(function (t) { return h('th', { text: t }); }),
            OVERVIEW_COLUMNS.map(function (t) { return h('th', { 'class': 'num', title: t[1], text: t[0] }); }),
            h('th', { title: 'Jobs completed (blue) and failed (red) per 10 minutes, last 24 hours', text: 'Last 24 hours' }))),
          h('tbody', null, rows)),
          h('p', { 'class': 'note muted', text: 'Pending work is ready + delayed + at a batch cap + at a group cap + in flight. '
            + 'Completed and Failed are running totals since the queue was created (Failed: failed attempts, retried or '
            + 'dead-lettered, and jobs dead-lettered without one).' })),
      h('h2', { text: 'Live workers (' + data.workers.length + ')' }),
      h('div', { 'class': 'panel' }, data.workers.length === 0 ? h('p', { 'class': 'empty', text: 'No live worker.' })
        : h('table', { id: 'workers' },
          h('thead', null, h('tr', null, ['Worker', 'Host', 'Queues', 'Running', 'Started', 'Last heartbeat'].map(function (t, i) {
            return h('th', { 'class': i === 3 ? 'num' : null, text: t });
          }))),
          h('tbody', null, workers)))
    ];
  }

  var OVERVIEW_COLUMNS = [['Ready', 'Ready to run now'], ['Delayed', 'Waiting for their due time (scheduled or backing off)'],
    ['At batch cap', 'Sub-jobs held because their batch runs at most N at once'],
    ['At group cap', 'Jobs held because their group runs at most N at once'],
    ['In flight', 'Reserved by a worker, under a lease'], ['Dead', 'Dead letters'],
    ['Completed', 'Jobs completed since the queue was created'],
    ['Failed', 'Failed attempts (retried or dead-lettered) and jobs dead-lettered without one, since the queue was created'],
    ['Head age', 'How long the next job to run has been ready'], ['Throughput', 'Completions per second, last minute']];

  function card(label, value, extra, sub) {
    return h('div', { 'class': 'card' + (extra ? ' ' + extra : ''), 'data-card': label },
      h('div', { 'class': 'label', text: label }), h('div', { 'class': 'value', text: value }),
      sub ? h('div', { 'class': 'sub muted', text: sub }) : null);
  }

  function queueView(r, data) {
    var q = data.queue;
    crumbs([['Queues', '#/'], [q.name, null]]);
    var actions = h('div', { 'class': 'bar' });
    if (!settings.readOnly) {
      var path = 'queues/' + encodeURIComponent(q.name) + '/';
      append(actions, q.paused
        ? h('button', { 'data-action': 'resume', text: 'Resume', onclick: function () { act(path + 'resume', 'Resume queue "' + q.name + '"?'); } })
        : h('button', { 'data-action': 'pause', text: 'Pause', onclick: function () { act(path + 'pause', 'Pause queue "' + q.name + '"? Running jobs finish; no new job is handed out.'); } }));
      if (q.dead > 0) {
        append(actions, h('button', { 'data-action': 'retry-all', text: 'Retry all dead', onclick: function () { act(path + 'dead/retry', 'Put all ' + q.dead + ' dead job(s) of "' + q.name + '" back in the queue?'); } }));
        append(actions, h('button', { 'class': 'danger', 'data-action': 'purge', text: 'Purge dead', onclick: function () { act(path + 'dead/purge', 'Delete all ' + q.dead + ' dead job(s) of "' + q.name + '"? This cannot be undone.'); } }));
      }
    }
    var tabs = h('div', { 'class': 'tabs' }, STATES.map(function (s) {
      var count = { ready: q.ready, delayed: q.delayed, active: q.inFlight, dead: q.dead }[s[0]];
      return h('a', { href: queueLink(q.name, s[0], s[0] === 'dead' ? 'newest' : 'oldest'), 'class': s[0] === r.state ? 'on' : null,
        'data-state': s[0], text: s[1] + ' (' + count + ')' });
    }));
    var order = h('div', { 'class': 'bar' },
      h('span', { 'class': 'muted', text: pageText(r, data) }),
      h('a', { href: queueLink(q.name, r.state, r.order === 'oldest' ? 'newest' : 'oldest'), 'data-order': r.order,
        text: r.order === 'oldest' ? orderText(r.state, true) + ' (switch)' : orderText(r.state, false) + ' (switch)' }),
      r.offset > 0 ? h('a', { href: queueLink(q.name, r.state, r.order, Math.max(0, r.offset - PAGE)), text: '\u2190 previous' }) : null,
      r.offset + data.jobs.length < data.total ? h('a', { href: queueLink(q.name, r.state, r.order, r.offset + PAGE), 'data-page': 'next', text: 'next \u2192' }) : null);
    return [
      h('h1', null, h('span', { text: q.name }),
        h('span', { 'class': 'badge ' + (q.paused ? 'paused' : 'running'), id: 'queue-state', text: q.paused ? 'paused' : 'running' })),
      h('div', { 'class': 'cards' }, card('Ready', q.ready), card('Delayed', q.delayed),
        card('At batch cap', q.batchWaiting, q.batchWaiting > 0 ? 'held' : null),
        card('At group cap', q.groupWaiting, q.groupWaiting > 0 ? 'held' : null), card('In flight', q.inFlight),
        card('Dead', q.dead, q.dead > 0 ? 'bad' : null),
        card('Completed', q.completedTotal, null, q.completed > 0 ? q.completed + ' retained' : 'since created'),
        card('Failed', q.failedTotal, null, 'since created'),
        card('Head age', q.headAgeMillis === null ? '\u2013' : ago(q.headAgeMillis)), card('Throughput', rate(q.throughput))),
      h('div', { 'class': 'panel chart-panel', id: 'queue-chart' }, spark(q.chart, true), chartLegend(q.chart)),
      actions,
      data.batches.length ? [h('h2', { text: 'Open batches' }), batchTable(data.batches)] : null,
      tabs, order,
      h('div', { 'class': 'panel' }, jobTable(q.name, r.state, data.jobs))
    ];
  }

  function orderText(state, oldest) {
    var words = { ready: ['next to run first', 'last in line first'], delayed: ['due soonest first', 'due last first'],
      active: ['lease ending soonest first', 'lease ending last first'], dead: ['died longest ago first', 'newest first'] }[state];
    return words ? words[oldest ? 0 : 1] : '';
  }

  function pageText(r, data) {
    if (data.total === 0 || data.jobs.length === 0) return 'No job here.';
    return 'Jobs ' + (r.offset + 1) + '\u2013' + (r.offset + data.jobs.length) + ' of ' + data.total + ',';
  }

  function jobTable(queue, state, jobs) {
    if (jobs.length === 0) return h('p', { 'class': 'empty', text: 'No ' + ({ active: 'in-flight' }[state] || state) + ' job.' });
    var columns = [['Id', function (j) { return h('a', { href: jobLink(queue, j.id), text: j.id }); }],
      ['Priority', function (j) { return j.priority; }, 'num'],
      [state === 'active' ? 'Attempt' : 'Attempts', function (j) { return attemptText(j, ' / '); }, 'num'],
      ['Enqueued', function (j) { return time(j.enqueuedAt); }]];
    if (state === 'delayed') columns.push(['Due', function (j) { return time(j.dueAt); }]);
    if (state === 'active') {
      columns.push(['Worker', function (j) { return j.worker || ''; }]);
      columns.push(['Lease until', function (j) { return time(j.leaseUntil); }]);
      columns.push(['Progress', function (j) { return progressView(j.progress, { 'class': 'job-progress' }); }, 'wrap']);
    }
    if (state === 'dead') {
      columns.push(['Died', function (j) { return time(j.finishedAt); }]);
      columns.push(['Error', function (j) { return j.error || ''; }, 'wrap']);
    }
    columns.push(['Payload', function (j) { return h('code', { text: j.preview }); }, 'wrap']);
    return h('table', { id: 'jobs' },
      h('thead', null, h('tr', null, columns.map(function (c) { return h('th', { 'class': c[2] || null, text: c[0] }); }))),
      h('tbody', null, jobs.map(function (j) {
        return h('tr', { 'data-job': j.id }, columns.map(function (c) { return h('td', { 'class': c[2] || null }, c[1](j)); }));
      })));
  }

  function batchTable(batches) {
    return h('div', { 'class': 'panel' }, h('table', { id: 'batches' },
      h('thead', null, h('tr', null, ['Batch', 'State', 'Progress', 'Waiting', 'Running', 'Completed', 'Dead', 'Cancelled', 'Cap']
        .map(function (t, i) { return h('th', { 'class': i > 2 ? 'num' : null, text: t }); }))),
      h('tbody', null, batches.map(function (b) {
        var ended = b.completed + b.dead + b.cancelled;
        var pct = b.total > 0 ? Math.round((ended / b.total) * 100) : 0;
        var fill = h('span');
        fill.style.width = pct + '%';
        return h('tr', { 'data-batch': b.id }, h('td', { text: b.id }), h('td', { text: b.state }),
          h('td', null, h('span', { 'class': 'progress', title: ended + ' of ' + b.total }, fill), ' ' + pct + '%'),
          h('td', { 'class': 'num', text: b.waiting }), h('td', { 'class': 'num', text: b.active }),
          h('td', { 'class': 'num', text: b.completed }), h('td', { 'class': 'num', text: b.dead }),
          h('td', { 'class': 'num', text: b.cancelled }), h('td', { 'class': 'num', text: b.maxConcurrency || '' }));
      }))));
  }

  function pretty(text) {
    try {
      var value = JSON.parse(text);
      if (value !== null && typeof value === 'object') return JSON.stringify(value, null, 2);
    } catch (e) { /* not JSON: shown as it is */ }
    return text;
  }

  // a job's progress as its handler reported it (stored as JSON text): a string without its
  // quotes, anything else as compact JSON; text only
  function progressText(text) {
    if (text === null || text === undefined) return '';
    try {
      var value = JSON.parse(text);
      return typeof value === 'string' ? value : JSON.stringify(value);
    } catch (e) { /* not JSON: shown as it is */ }
    return text;
  }

  // attempts as the handler counts them: a running job is on attempt (failed attempts + 1); any
  // other job shows the attempts it made
  function attemptText(j, sep) {
    return (j.state === 'ACTIVE' ? j.attempts + 1 : j.attempts) + sep + j.maxAttempts;
  }

  // how far a job's progress is, 0..100, when it reads as such: a fraction 0..1, a percentage
  // 0..100, or an object with a numeric percent, fraction, or done and total; null otherwise
  function progressPercent(value) {
    var pct = null;
    if (typeof value === 'number') pct = value <= 1 ? value * 100 : value;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      if (typeof value.percent === 'number') pct = value.percent;
      else if (typeof value.fraction === 'number') pct = value.fraction * 100;
      else if (typeof value.done === 'number' && typeof value.total === 'number' && value.total > 0) pct = (value.done / value.total) * 100;
    }
    return pct !== null && isFinite(pct) && pct >= 0 && pct <= 100 ? pct : null;
  }

  // a job's progress: a bar with its percentage when it reads as one, else compact text
  function progressView(text, attrs) {
    var value;
    try { value = JSON.parse(text); } catch (e) { value = undefined; }
    var pct = value === undefined ? null : progressPercent(value);
    if (pct === null) return h('span', Object.assign({ text: progressText(text) }, attrs));
    var fill = h('span');
    fill.style.width = pct.toFixed(1) + '%';
    var label = (Math.round(pct * 10) / 10) + '%';
    if (value && typeof value === 'object' && typeof value.done === 'number' && typeof value.total === 'number') {
      label += ' (' + value.done + ' of ' + value.total + ')';
    }
    return h('span', Object.assign({ 'data-percent': pct.toFixed(1), title: progressText(text) }, attrs),
      h('span', { 'class': 'progress' }, fill), ' ' + label);
  }

  // the page of a job that is not found: why, instead of a page left loading
  function jobGone(r, message) {
    crumbs([['Queues', '#/'], [r.queue, queueLink(r.queue)], ['job ' + r.id, null]]);
    var view = document.getElementById('view');
    lastDrawn = '';
    clear(view);
    append(view, [h('h1', null, h('span', { text: 'Job ' + r.id }), h('span', { 'class': 'muted', text: 'in ' + r.queue })),
      h('div', { 'class': 'panel' }, h('p', { 'class': 'empty', id: 'job-gone', text: message })),
      h('p', null, h('a', { href: queueLink(r.queue), text: 'Back to queue ' + r.queue }))]);
  }

  function jobView(r, job) {
    crumbs([['Queues', '#/'], [r.queue, queueLink(r.queue, stateOf(job.state))], ['job ' + r.id, null]]);
    var path = 'queues/' + encodeURIComponent(r.queue) + '/jobs/' + encodeURIComponent(r.id) + '/';
    var actions = h('div', { 'class': 'bar' });
    if (!settings.readOnly) {
      if (job.state === 'DEAD') {
        append(actions, h('button', { 'data-action': 'retry', text: 'Retry', onclick: function () { act(path + 'retry', 'Put dead job ' + r.id + ' back in queue "' + r.queue + '"?'); } }));
      }
      if (job.state === 'DELAYED') {
        append(actions, h('button', { 'data-action': 'promote', text: 'Run now', onclick: function () { act(path + 'promote', 'Run delayed job ' + r.id + ' now?'); } }));
      }
      if (job.state !== 'ACTIVE') {
        append(actions, h('button', { 'class': 'danger', 'data-action': 'delete', text: 'Delete', onclick: function () {
          act(path + 'delete', 'Delete job ' + r.id + ' of queue "' + r.queue + '"? This cannot be undone.')
            .then(function () { if (!document.getElementById('flash').classList.contains('error')) location.hash = queueLink(r.queue, stateOf(job.state)); });
        } }));
      }
    }
    var fields = [['State', h('span', { 'class': 'badge ' + job.state, id: 'job-state', text: job.state })],
      ['Progress', job.progress ? progressView(job.progress, { id: 'job-progress' }) : ''],
      ['Priority', job.priority], [job.state === 'ACTIVE' ? 'Attempt' : 'Attempts', h('span', { id: 'job-attempts', text: attemptText(job, ' of ') })],
      ['Enqueued', time(job.enqueuedAt)], ['Due', time(job.dueAt)], ['Expires', time(job.expireAt)],
      ['Lease holder', job.state === 'ACTIVE' ? job.worker || '' : ''], ['Lease until', job.state === 'ACTIVE' ? time(job.leaseUntil) : ''],
      ['Finished', time(job.finishedAt)],
      ['Payload size', job.payloadBytes + ' bytes']];
    var headers = Object.keys(job.headers || {});
    return [
      h('h1', null, h('span', { text: 'Job ' + job.id }), h('span', { 'class': 'muted', text: 'in ' + job.queue })),
      actions,
      h('div', { 'class': 'panel' }, h('dl', { 'class': 'fields' }, fields.filter(function (f) { return f[1] !== ''; })
        .map(function (f) { return [h('dt', { text: f[0] }), h('dd', null, f[1])]; }))),
      job.lastError ? [h('h2', { text: 'Last error' }), h('pre', { id: 'job-error', text: job.lastError })] : null,
      h('h2', { text: 'Payload' + (job.payloadCut ? ' (first part only)' : '') }),
      h('pre', { id: 'job-payload', text: pretty(job.payload) }),
      headers.length ? [h('h2', { text: 'Headers' }), h('div', { 'class': 'panel' }, h('table', { id: 'job-headers' },
        h('tbody', null, headers.sort().map(function (k) { return h('tr', null, h('th', { text: k }), h('td', { 'class': 'wrap', text: job.headers[k] })); }))))] : null
    ];
  }

  function stateOf(state) {
    return { READY: 'ready', DELAYED: 'delayed', ACTIVE: 'active', DEAD: 'dead' }[state] || 'ready';
  }

  // what the other pages (pages.js) draw with
  window.QueueDashboard = { h: h, append: append, clear: clear, time: time, ago: ago, api: api, answer: answer,
    flash: flash, crumbs: crumbs, card: card, refresh: refresh, queueLink: queueLink, jobLink: jobLink,
    settings: function () { return settings; } };

  window.addEventListener('hashchange', function () {
    document.getElementById('flash').hidden = true;
    refresh();
  });
  document.addEventListener('DOMContentLoaded', function () {
    schedule();
    refresh();
  });
})();
