// The payment page's browser side: countdown to expiresAt, live status, copy buttons, the receipt, and back to the shop
// once paid (after 10 s the payer can stop).
// Plain JS served inline under the page's CSP nonce; it reads its data from data-* attributes, never from HTML.
(function () {
  'use strict';
  var root = document.getElementById('payment');
  if (!root) return;
  var statusUrl = root.dataset.statusUrl;
  var eventsUrl = root.dataset.eventsUrl;
  var pollMs = Number(root.dataset.pollMs) || 3000;
  // time to read the receipt before going back to the shop by itself (WCAG 2.2.1 asks for 10 s and a way to stop)
  var returnSeconds = 10;
  var timeFormat = new Intl.DateTimeFormat('id-ID', {
    timeZone: 'Asia/Jakarta',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  var expiresAt = Date.parse(root.dataset.expiresAt);
  // the server's clock decides expiry: a phone whose clock is off still counts down correctly
  var clockOffset = Date.parse(root.dataset.now) - Date.now();
  var countdown = document.getElementById('countdown');
  var status = root.dataset.status;
  var timer = null;
  var pollTimer = null;
  var polling = false;
  var source = null;

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
    if (left <= 0) {
      stopListening(); // the stream ends at the expiry: the polling shows what comes of it
      poll(); // the server expires it within a moment: show that at once
    }
  }

  function httpUrl(value) {
    try {
      var url = new URL(value, window.location.href);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (err) {
      return null;
    }
  }

  // the receipt's time, for a page that saw the payment complete (the server wrote it into a page opened later)
  function showPaidAt(paidAt) {
    var cell = document.getElementById('receipt-paid-at');
    var at = Date.parse(paidAt);
    if (!cell || cell.textContent.trim() || isNaN(at)) return;
    var time = document.createElement('time');
    time.dateTime = new Date(at).toISOString();
    time.textContent = timeFormat.format(at) + ' WIB';
    cell.appendChild(time);
  }

  // back to the shop by itself only from a page that saw the payment complete (a receipt opened later stays put),
  // counting down where the payer sees it; "Tetap di sini" stops it, and "Kembali ke toko" stays for later
  function returnSoon() {
    var link = document.getElementById('return');
    var note = document.getElementById('return-note');
    var counter = document.getElementById('return-countdown');
    var stay = document.getElementById('stay');
    var target = link && httpUrl(link.getAttribute('href'));
    if (!target || !note || !counter || !stay) return;
    var deadline = Date.now() + returnSeconds * 1000;
    var returnTimer = null;
    var step = function () {
      var left = deadline - Date.now();
      if (left > 0) {
        counter.textContent = String(Math.ceil(left / 1000));
        return;
      }
      clearInterval(returnTimer);
      window.location.assign(target);
    };
    stay.addEventListener('click', function () {
      clearInterval(returnTimer);
      note.textContent = 'Anda tetap di halaman ini. Kembali ke toko kapan saja dengan tombol di bawah.';
      stay.hidden = true;
      link.focus();
    });
    note.hidden = false;
    stay.hidden = false;
    step();
    returnTimer = setInterval(step, 250);
  }

  function show(next, data) {
    var seenCompleting = status === 'PENDING' && next === 'COMPLETED';
    status = next;
    root.dataset.status = next; // the stylesheet shows the section of this state
    if (next === 'PENDING') return;
    clearInterval(timer);
    clearInterval(pollTimer);
    stopListening();
    if (data && data.paidAt) showPaidAt(data.paidAt);
    if (seenCompleting) returnSoon();
  }

  // a page out of sight asks nothing: the server reads a page gone quiet as its payer paying in the wallet app, and
  // checks the account densely for a moment; a page in sight is its payer reading it (or paying from its QR on a desk)
  function poll() {
    if (polling || status !== 'PENDING' || document.hidden) return;
    polling = true;
    fetch(statusUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (body) {
        var data = body && body.data;
        if (data && data.status !== status) show(data.status, data);
      })
      .catch(function () {
        /* offline for a moment: the next poll tries again */
      })
      .then(function () {
        polling = false;
      });
  }

  // the payment's end the moment the service sees it (server-sent events, same origin: the CSP's connect-src 'self');
  // the polling goes on beside it, and carries on alone where there is no stream (an old browser, a proxy that holds
  // the events back, a stream refused or cut: the browser tries a cut one again by itself)
  function listen() {
    if (!eventsUrl || typeof window.EventSource !== 'function' || status !== 'PENDING') return;
    try {
      source = new window.EventSource(eventsUrl);
    } catch (err) {
      source = null;
      return;
    }
    source.addEventListener('status', function (event) {
      var data = null;
      try {
        data = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (data && data.status && data.status !== status) show(data.status, data);
    });
  }

  function stopListening() {
    if (!source) return;
    source.close();
    source = null;
  }

  var copyNote = document.getElementById('copy-note');

  function copy(button) {
    var text = button.getAttribute('data-copy');
    var label = button.getAttribute('data-label');
    var done = function (ok) {
      button.textContent = ok ? 'Tersalin' : 'Gagal';
      if (copyNote)
        copyNote.textContent = ok
          ? button.getAttribute('data-copied')
          : 'Tidak dapat menyalin otomatis; tekan lama angkanya untuk menyalin.';
      setTimeout(function () {
        button.textContent = label;
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () {
          done(true);
        },
        function () {
          done(false);
        },
      );
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

  // the copy buttons show only where this script runs; without it the number is text to select
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.setAttribute('data-label', button.textContent);
    button.hidden = false;
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
      fetch(paidCheck.getAttribute('data-check'), {
        method: 'POST',
        cache: 'no-store',
        headers: { accept: 'application/json' },
      })
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

  // "Bayar (sandbox)": a sandbox customer pays the bill; the page says what the sandbox answered and looks soon after
  var sandboxPay = document.getElementById('sandbox-pay');
  if (sandboxPay) {
    sandboxPay.addEventListener('click', function () {
      var note = document.getElementById('sandbox-note');
      var say = function (text) {
        if (!note) return;
        note.textContent = text;
        note.hidden = false;
      };
      sandboxPay.disabled = true;
      say('Membayar lewat sandbox…');
      fetch(sandboxPay.getAttribute('data-sandbox-pay'), {
        method: 'POST',
        cache: 'no-store',
        headers: { accept: 'application/json' },
      })
        .then(function (response) {
          return response.json().then(function (body) {
            if (response.ok) {
              say('Sandbox sudah membayar. Menunggu pembayaran tercatat…');
              setTimeout(poll, 1000);
              setTimeout(poll, 3000);
              return;
            }
            say('Sandbox tidak membayar tagihan ini (' + ((body && body.code) || response.status) + ').');
            sandboxPay.disabled = false;
          });
        })
        .catch(function () {
          say('Sandbox tidak dapat dihubungi; coba lagi.');
          sandboxPay.disabled = false;
        });
    });
  }

  // says how the page leaves, once: keepalive, the request outlives a page being closed
  function sayLeaving(visibility) {
    var url = statusUrl + (statusUrl.indexOf('?') < 0 ? '?' : '&') + 'visibility=' + visibility;
    fetch(url, { cache: 'no-store', keepalive: true, headers: { accept: 'application/json' } }).catch(function () {
      /* a signal lost is only a check made a little later */
    });
  }

  // going out of sight (off to the wallet or banking app, or the tab closing): say so once, then ask nothing until
  // back; back: look at once instead of waiting for the next poll
  document.addEventListener('visibilitychange', function () {
    if (status !== 'PENDING') return;
    if (document.visibilityState === 'visible') return poll();
    sayLeaving('hidden');
  });

  // closed, or left for another address (after going out of sight): its payer is gone, not paying in the wallet app,
  // which a switch to another app never fires; a page kept for going back (persisted) may yet come back, and says
  // nothing more
  window.addEventListener('pagehide', function (event) {
    if (status !== 'PENDING' || event.persisted) return;
    sayLeaving('closed');
  });

  if (status === 'PENDING') {
    tick();
    timer = setInterval(tick, 1000);
    pollTimer = setInterval(poll, pollMs);
    listen();
  } else {
    show(status);
  }
})();
