// The payment page's browser side: countdown to expiresAt, live status, copy buttons, redirect once paid.
// Plain JS served inline under the page's CSP nonce; it reads its data from data-* attributes, never from HTML.
(function () {
  'use strict';
  var root = document.getElementById('payment');
  if (!root) return;
  var statusUrl = root.dataset.statusUrl;
  var pollMs = Number(root.dataset.pollMs) || 3000;
  var redirectSeconds = 3;
  var expiresAt = Date.parse(root.dataset.expiresAt);
  // the server's clock decides expiry: a phone whose clock is off still counts down correctly
  var clockOffset = Date.parse(root.dataset.now) - Date.now();
  var countdown = document.getElementById('countdown');
  var status = root.dataset.status;
  var timer = null;
  var pollTimer = null;
  var polling = false;

  function two(n) {
    return (n < 10 ? '0' : '') + n;
  }

  function remaining(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var d = Math.floor(s / 86400);
    var h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60);
    var clock = two(m) + ':' + two(s % 60);
    if (d > 0) return d + ' hari ' + two(h) + ':' + clock;
    return h > 0 ? h + ':' + clock : clock;
  }

  function tick() {
    if (status !== 'PENDING') return;
    var left = expiresAt - (Date.now() + clockOffset);
    countdown.textContent = remaining(left);
    if (left <= 0) poll(); // the server expires it within a moment: show that at once
  }

  function httpUrl(value) {
    try {
      var url = new URL(value, window.location.href);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (err) {
      return null;
    }
  }

  function redirectSoon(redirectUrl) {
    var link = document.getElementById('return');
    var target = httpUrl(redirectUrl || (link && link.href) || '');
    if (!target) return;
    var note = document.getElementById('redirect-note');
    var left = redirectSeconds;
    var step = function () {
      if (left <= 0) return window.location.assign(target);
      note.textContent = 'Pembayaran diterima. Anda akan diarahkan kembali ke toko dalam ' + left + ' detik.';
      left -= 1;
      setTimeout(step, 1000);
    };
    step();
  }

  function show(next, redirectUrl) {
    status = next;
    root.dataset.status = next; // the stylesheet shows the section of this state
    if (next === 'PENDING') return;
    clearInterval(timer);
    clearInterval(pollTimer);
    if (next === 'COMPLETED') redirectSoon(redirectUrl);
  }

  function poll() {
    if (polling || status !== 'PENDING') return;
    polling = true;
    fetch(statusUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (body) {
        var data = body && body.data;
        if (data && data.status !== status) show(data.status, data.redirectUrl);
      })
      .catch(function () {
        /* offline for a moment: the next poll tries again */
      })
      .then(function () {
        polling = false;
      });
  }

  function copy(button) {
    var text = button.getAttribute('data-copy');
    var done = function (ok) {
      button.textContent = ok ? 'Tersalin' : 'Gagal';
      setTimeout(function () {
        button.textContent = 'Salin';
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
      return;
    }
    // plain http: select the text so the customer can copy it by hand, and try the old command
    var range = document.createRange();
    range.selectNodeContents(button.previousElementSibling);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (err) {
      ok = false;
    }
    done(ok);
  }

  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () {
      copy(button);
    });
  });

  // a payment created without a type: the payer picks the method, the server bills it, the page shows the bill
  document.querySelectorAll('button[data-choose]').forEach(function (button) {
    button.addEventListener('click', function () {
      document.querySelectorAll('button[data-choose]').forEach(function (b) {
        b.disabled = true;
      });
      fetch(button.getAttribute('data-choose'), {
        method: 'POST',
        cache: 'no-store',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ type: button.getAttribute('data-type') }),
      })
        .then(function () {
          window.location.reload();
        })
        .catch(function () {
          window.location.reload();
        });
    });
  });

  // "Saya sudah bayar": the server checks the receiving account now; the page says so and looks at once
  var paidCheck = document.getElementById('paid-check');
  if (paidCheck) {
    paidCheck.addEventListener('click', function () {
      var note = document.getElementById('check-note');
      paidCheck.disabled = true;
      if (note) note.hidden = false;
      fetch(paidCheck.getAttribute('data-check'), { method: 'POST', cache: 'no-store', headers: { accept: 'application/json' } })
        .catch(function () {
          /* the regular checks go on anyway */
        })
        .then(function () {
          setTimeout(poll, 1500);
          setTimeout(function () {
            paidCheck.disabled = false;
          }, 10000);
        });
    });
  }

  // back from the wallet or banking app: look at once instead of waiting for the next poll
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible') poll();
  });

  if (status === 'PENDING') {
    tick();
    timer = setInterval(tick, 1000);
    pollTimer = setInterval(poll, pollMs);
  } else {
    show(status);
  }
})();
