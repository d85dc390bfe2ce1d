/**
 * The live board's script (board-page.ts): plain browser JavaScript, kept as text so the service
 * serves it as it is. It logs in, keeps the token in sessionStorage, reads the admission stream with
 * fetch and a stream reader (the token in the Authorization header), and redraws a spot when an event
 * changes it; the stream is opened again a few seconds after it ends.
 */
export const BOARD_JS = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'board.accessToken';
  var MINUTES = 60;
  var spots = new Map();
  var latest = null;
  var controller = null;
  var retryTimer = null;
  var $ = function (id) { return document.getElementById(id); };

  function setStatus(text) { $('status').textContent = text; }

  function showLogin(message) {
    $('board').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = message || '';
    newCaptcha();
    $('username').focus();
    setStatus('Not connected');
  }

  function newCaptcha() {
    $('code').value = '';
    $('captcha').src = '/manage-api/auth/getRandomCodeImg?r=' + Date.now();
  }

  async function login(event) {
    event.preventDefault();
    var body = { username: $('username').value, password: $('password').value, code: $('code').value };
    try {
      var res = await fetch('/manage-api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      });
      var answer = await res.json();
      if (answer.errcode !== 0) {
        $('password').value = '';
        showLogin(answer.errmsg || 'Login failed');
        return;
      }
      sessionStorage.setItem(TOKEN_KEY, answer.data.accessToken);
      $('password').value = '';
      start();
    } catch (err) {
      showLogin('The service cannot be reached: ' + err.message);
    }
  }

  function logout() {
    var token = sessionStorage.getItem(TOKEN_KEY);
    sessionStorage.removeItem(TOKEN_KEY);
    if (controller) controller.abort();
    clearTimeout(retryTimer);
    if (token) {
      fetch('/manage-api/auth/logout', { method: 'POST', headers: { authorization: 'Bearer ' + token } }).catch(function () {});
    }
    spots.clear();
    $('spots').replaceChildren();
    showLogin('');
  }

  function start() {
    $('login').hidden = true;
    $('board').hidden = false;
    $('logout').hidden = false;
    connect();
  }

  function retryLater(seconds, why) {
    setStatus(why + ' Reconnecting in ' + seconds + ' s.');
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, seconds * 1000);
  }

  async function connect() {
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) return showLogin('');
    controller = new AbortController();
    setStatus('Connecting…');
    var res;
    try {
      res = await fetch('/manage-api/checker/admissionStream', {
        headers: { authorization: 'Bearer ' + token, accept: 'text/event-stream' },
        signal: controller.signal,
        cache: 'no-store',
      });
    } catch (err) {
      if (err.name === 'AbortError') return;
      return retryLater(5, 'The service cannot be reached.');
    }
    var type = res.headers.get('content-type') || '';
    if (type.indexOf('text/event-stream') !== 0) {
      var answer = await res.json().catch(function () { return {}; });
      if (answer.errcode === 401) {
        sessionStorage.removeItem(TOKEN_KEY);
        return showLogin('Your login has expired: please log in again.');
      }
      if (answer.errcode === 403) return showLogin(answer.errmsg);
      return retryLater(10, answer.errmsg || 'The stream was refused.');
    }
    setStatus('Live');
    await readEvents(res.body);
    if (!controller.signal.aborted) retryLater(3, 'The stream ended.');
  }

  async function readEvents(body) {
    var reader = body.pipeThrough(new TextDecoderStream()).getReader();
    var buffer = '';
    try {
      for (;;) {
        var part = await reader.read();
        if (part.done) return;
        buffer += part.value.replace(/\r\n/g, '\n');
        var end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          var block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          handleBlock(block);
        }
      }
    } catch (err) {
      if (err.name !== 'AbortError') console.warn('admission stream broke', err);
    }
  }

  function handleBlock(block) {
    var name = 'message';
    var data = '';
    block.split('\n').forEach(function (line) {
      if (line.indexOf('event:') === 0) name = line.slice(6).trim();
      else if (line.indexOf('data:') === 0) data += line.slice(5).trim();
    });
    if (!data) return; // a heartbeat comment
    var payload = JSON.parse(data);
    if (name === 'snapshot') {
      spots.clear();
      $('spots').replaceChildren();
      latest = payload.at;
      payload.spots.forEach(function (s) { update(s, s.minutes, true); });
    } else if (name === 'admission') {
      latest = payload.at;
      update(payload, payload.minutes, false);
    }
    redrawSparks();
    $('empty').hidden = spots.size > 0;
    setStatus('Live, updated ' + latest.slice(11, 19));
  }

  function update(s, minutes, replace) {
    var spot = spots.get(s.skuId);
    if (!spot) {
      spot = { minutes: new Map(), el: build(s) };
      spots.set(s.skuId, spot);
      insertInOrder(spot.el, s.skuId);
    }
    if (replace) spot.minutes.clear();
    (minutes || []).forEach(function (m) { spot.minutes.set(m.minute.slice(0, 16), m.admitted); });
    spot.name = s.skuName;
    spot.capacity = s.dailyCapacity;
    spot.admitted = s.admitted;
    draw(spot);
  }

  function insertInOrder(el, skuId) {
    var list = $('spots');
    var after = Array.prototype.find.call(list.children, function (li) { return Number(li.dataset.skuId) > skuId; });
    list.insertBefore(el, after || null);
  }

  function build(s) {
    var li = document.createElement('li');
    li.className = 'spot';
    li.dataset.skuId = String(s.skuId);
    var h = document.createElement('h3');
    h.id = 'spot-' + s.skuId;
    var figure = document.createElement('span');
    figure.className = 'figure';
    var bar = document.createElement('div');
    bar.className = 'bar';
    bar.setAttribute('role', 'meter');
    bar.setAttribute('aria-labelledby', h.id);
    bar.setAttribute('aria-valuemin', '0');
    var fill = document.createElement('div');
    fill.className = 'fill';
    bar.appendChild(fill);
    var svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('class', 'spark');
    svg.setAttribute('viewBox', '0 0 ' + (MINUTES - 1) + ' 20');
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    var line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    svg.appendChild(line);
    li.append(h, figure, bar, svg);
    return li;
  }

  function draw(spot) {
    var el = spot.el;
    el.querySelector('h3').textContent = spot.name;
    var figure = el.querySelector('.figure');
    figure.textContent = spot.capacity === null ? String(spot.admitted) : spot.admitted + ' / ' + spot.capacity;
    var bar = el.querySelector('.bar');
    var share = spot.capacity ? spot.admitted / spot.capacity : 0;
    bar.hidden = spot.capacity === null;
    bar.setAttribute('aria-valuenow', String(spot.admitted));
    if (spot.capacity !== null) bar.setAttribute('aria-valuemax', String(spot.capacity));
    bar.setAttribute('aria-valuetext', spot.capacity === null
      ? spot.admitted + ' admitted, no daily capacity'
      : spot.admitted + ' of ' + spot.capacity + ' admitted');
    el.querySelector('.fill').style.width = Math.min(100, share * 100).toFixed(1) + '%';
    el.classList.toggle('over', share >= 1);
    el.classList.toggle('near', share >= 0.8 && share < 1);
  }

  /** Wire minutes ("YYYY-MM-DD HH:mm") counted as if UTC: only their differences matter here. */
  function minuteNumber(text) {
    return Date.UTC(+text.slice(0, 4), +text.slice(5, 7) - 1, +text.slice(8, 10), +text.slice(11, 13), +text.slice(14, 16)) / 60000;
  }

  function redrawSparks() {
    if (!latest) return;
    var last = minuteNumber(latest.slice(0, 16));
    spots.forEach(function (spot) {
      var values = new Array(MINUTES).fill(0);
      spot.minutes.forEach(function (n, minute) {
        var i = MINUTES - 1 - (last - minuteNumber(minute));
        if (i >= 0 && i < MINUTES) values[i] = n;
        else if (i < 0) spot.minutes.delete(minute);
      });
      var top = Math.max(1, Math.max.apply(null, values));
      var points = values.map(function (v, i) { return i + ',' + (20 - (v / top) * 19).toFixed(2); }).join(' ');
      spot.el.querySelector('polyline').setAttribute('points', points);
      var total = values.reduce(function (a, b) { return a + b; }, 0);
      spot.el.querySelector('svg').setAttribute('aria-label', total + ' entries in the last hour, at most ' + Math.max.apply(null, values) + ' in a minute');
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('login').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    $('captcha-refresh').addEventListener('click', newCaptcha);
    if (sessionStorage.getItem(TOKEN_KEY)) start();
    else showLogin('');
  });
})();
`;
