// The sandbox console's page, script and style, kept as strings so the built server (esbuild copies
// only .ts files to dist/) serves the same bytes as tsx and vitest do. The script calls only the public
// /v1 API of the same origin with the key the integrator pastes, and writes data into the DOM through
// textContent alone; the page has no inline script or style, so its CSP needs no 'unsafe-inline'.

export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>Sandbox console</title>
<link rel="stylesheet" href="/sandbox/console.css">
<script src="/sandbox/console.js" defer></script>
</head>
<body>
<header>
<h1>Sandbox console</h1>
<p>What this sandbox holds for your key, read through the public API (/v1) of this service with the key you paste.
The key stays in this tab's session storage and is sent only to this origin.</p>
</header>
<main>
<section id="key-section">
<form id="key-form" autocomplete="off">
<label for="api-key">Sandbox API key</label>
<input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="svc_test_...">
<button type="submit" id="connect">Connect</button>
<button type="button" id="forget-key">Forget key</button>
</form>
<p id="key-status" class="status" role="status"></p>
</section>
<section id="merchant-section" hidden>
<label for="merchant-select">Merchant</label>
<select id="merchant-select"></select>
<button type="button" id="refresh">Refresh</button>
<p id="merchant-status" class="status" role="status"></p>
</section>
<section id="registers-section" hidden>
<h2>Registers</h2>
<p id="registers-status" class="status"></p>
<div id="registers"></div>
</section>
<section id="operations-section" hidden>
<h2>Last operations</h2>
<p id="operations-status" class="status"></p>
<table>
<thead><tr><th>Created</th><th>Type</th><th>Status</th><th>Total</th><th>Register</th><th>Signature</th><th>Receipt</th></tr></thead>
<tbody id="operations"></tbody>
</table>
</section>
<section id="exports-section" hidden>
<h2>Exports</h2>
<p id="exports-status" class="status"></p>
<table>
<thead><tr><th>Created</th><th>Type</th><th>Status</th><th>Period</th><th>Download</th></tr></thead>
<tbody id="exports"></tbody>
</table>
</section>
<section id="webhooks-section" hidden>
<h2>Webhook endpoints</h2>
<p id="webhooks-status" class="status"></p>
<div id="webhooks"></div>
</section>
</main>
</body>
</html>
`;

export const CONSOLE_CSS = `
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #1d2430; background: #fafbfc; }
header p { color: #4a5565; max-width: 48rem; }
section { margin: 1.5rem 0; }
label { font-weight: 600; margin-right: 0.5rem; }
input, select, button { font: inherit; padding: 0.3rem 0.5rem; }
input[type=password] { width: 28rem; max-width: 100%; }
button { cursor: pointer; }
.status { color: #4a5565; min-height: 1.2em; }
.status.error { color: #b42318; font-weight: 600; }
.status.ok { color: #067647; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #d5dae1; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
.card { background: #fff; border: 1px solid #d5dae1; border-radius: 6px; padding: 0.75rem 1rem; margin: 0.75rem 0; }
.card h3 { margin: 0 0 0.5rem; font-size: 1.05rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0.5rem 0; }
dt { color: #4a5565; }
dd { margin: 0; }
.value { font-family: ui-monospace, monospace; font-size: 0.85rem; overflow-wrap: anywhere; }
.simulation { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin-top: 0.5rem; }
ul.deliveries { margin: 0.25rem 0; padding-left: 1.2rem; }
`;

export const CONSOLE_JS = String.raw`'use strict';
(function () {
  var KEY_STORAGE = 'sandboxConsole.apiKey';
  var LIVE_KEY = /^svc_(platform_)?live_/;
  var SANDBOX_KEY = /^svc_(platform_)?test_/;
  var DEVICE_MODES = ['ok', 'unreachable', 'reject_after_start', 'timeout'];
  var AUTHORITY_MODES = { RT: ['ok', 'reject', 'unreachable'], RKSV: ['ok', 'reject', 'unreachable', 'timeout', 'credential_error'] };
  var OPERATION_LIMIT = 10;
  var EXPORT_LIMIT = 10;
  var WEBHOOK_LIMIT = 20;
  var DELIVERY_LIMIT = 5;

  var byId = function (id) { return document.getElementById(id); };

  /** An element with its text set through textContent only: data never becomes markup. */
  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function setStatus(id, text, kind) {
    var node = byId(id);
    node.textContent = text;
    node.className = 'status' + (kind ? ' ' + kind : '');
  }

  /** A link only to an http(s) address, opened without a referrer, so an odd value cannot run script. */
  function safeLink(address, text) {
    var url;
    try { url = new URL(address, window.location.origin); } catch (error) { return element('span', '-'); }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return element('span', '-');
    var link = element('a', text);
    link.href = url.href;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    return link;
  }

  /** An address as shown: without user and password, which an endpoint URL could carry. */
  function withoutCredentials(address) {
    try {
      var url = new URL(address);
      url.username = '';
      url.password = '';
      return url.href;
    } catch (error) {
      return '(unreadable address)';
    }
  }

  function definitionList(rows) {
    var list = element('dl');
    rows.forEach(function (row) {
      list.appendChild(element('dt', row[0]));
      list.appendChild(element('dd', row[1] === null || row[1] === undefined || row[1] === '' ? '-' : row[1], 'value'));
    });
    return list;
  }

  function storedKey() {
    return window.sessionStorage.getItem(KEY_STORAGE);
  }

  function ApiError(status, code, message) {
    this.status = status;
    this.code = code;
    this.message = message;
  }

  /** One call of the public API with the stored key; the merchant, when given, as Style M's X-Service-Merchant. */
  function api(method, path, merchantId, body) {
    var headers = { Authorization: 'Bearer ' + storedKey(), Accept: 'application/json' };
    if (merchantId) headers['X-Service-Merchant'] = merchantId;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    }).then(function (response) {
      return response.text().then(function (text) {
        var parsed = null;
        try { parsed = text ? JSON.parse(text) : null; } catch (error) { parsed = null; }
        if (!response.ok) {
          var code = parsed && parsed.code ? parsed.code : 'http_' + response.status;
          var message = parsed && parsed.message ? parsed.message : response.statusText;
          throw new ApiError(response.status, code, message);
        }
        return parsed;
      });
    });
  }

  function describeError(error) {
    if (error instanceof ApiError) return error.status + ' ' + error.code + ': ' + error.message;
    return 'The request failed: ' + (error && error.message ? error.message : String(error));
  }

  /** A refused key ends the session: it is dropped and the integrator is asked for another. */
  function failed(statusId, error) {
    if (error instanceof ApiError && error.status === 401) {
      forgetKey();
      setStatus('key-status', 'The API refused the key (' + error.message + '). Paste a sandbox key of this service.', 'error');
      return;
    }
    setStatus(statusId, describeError(error), 'error');
  }

  function showSections(visible) {
    ['merchant-section', 'registers-section', 'operations-section', 'exports-section', 'webhooks-section'].forEach(function (id) {
      byId(id).hidden = !visible;
    });
  }

  function forgetKey() {
    window.sessionStorage.removeItem(KEY_STORAGE);
    showSections(false);
    clear(byId('merchant-select'));
    ['registers', 'operations', 'exports', 'webhooks'].forEach(function (id) { clear(byId(id)); });
  }

  function connect(event) {
    event.preventDefault();
    var input = byId('api-key');
    var key = input.value.trim();
    // Emptied at once: the key lives in sessionStorage, never in the page.
    input.value = '';
    if (LIVE_KEY.test(key)) {
      setStatus('key-status', 'This is a live (production) key. The sandbox console takes sandbox keys only (svc_test_...); nothing was sent.', 'error');
      return;
    }
    if (!SANDBOX_KEY.test(key)) {
      setStatus('key-status', 'This is not a sandbox API key (svc_test_<country>_...); nothing was sent.', 'error');
      return;
    }
    window.sessionStorage.setItem(KEY_STORAGE, key);
    loadMerchants();
  }

  function loadMerchants() {
    setStatus('key-status', 'Connecting...');
    api('GET', '/v1/merchants').then(function (page) {
      setStatus('key-status', 'Connected with a sandbox key, kept in this tab only.', 'ok');
      var select = byId('merchant-select');
      clear(select);
      var prompt = element('option', 'Choose a merchant');
      prompt.value = '';
      select.appendChild(prompt);
      page.data.forEach(function (merchant) {
        var option = element('option', merchant.legal_name + ' (' + merchant.country_code + ', ' + merchant.id + ')');
        option.value = merchant.id;
        select.appendChild(option);
      });
      byId('merchant-section').hidden = false;
      setStatus('merchant-status', page.data.length === 0 ? 'The key reaches no merchant yet.' : page.data.length + ' merchant(s).');
    }, function (error) {
      failed('key-status', error);
    });
  }

  function selectedMerchant() {
    return byId('merchant-select').value;
  }

  function loadMerchant() {
    var merchantId = selectedMerchant();
    ['registers-section', 'operations-section', 'exports-section', 'webhooks-section'].forEach(function (id) {
      byId(id).hidden = !merchantId;
    });
    if (!merchantId) return;
    loadRegisters(merchantId);
    loadOperations(merchantId);
    loadExports(merchantId);
    loadWebhooks(merchantId);
  }

  // ---- registers and their fault simulation ----

  function modeSelect(label, modes, withUnchanged) {
    var wrapper = element('label', label + ' ');
    var select = element('select');
    if (withUnchanged) {
      var unchanged = element('option', '(unchanged)');
      unchanged.value = '';
      select.appendChild(unchanged);
    }
    modes.forEach(function (mode) {
      var option = element('option', mode);
      option.value = mode;
      select.appendChild(option);
    });
    wrapper.appendChild(select);
    return { wrapper: wrapper, select: select };
  }

  function simulationControls(merchantId, register) {
    var controls = element('div', null, 'simulation');
    var device = modeSelect('fiscal_device', DEVICE_MODES, false);
    device.select.className = 'device-mode';
    controls.appendChild(device.wrapper);
    var regime = register.fiscalization ? register.fiscalization.regime : null;
    var authority = AUTHORITY_MODES[regime] ? modeSelect('authority', AUTHORITY_MODES[regime], true) : null;
    if (authority) {
      authority.select.className = 'authority-mode';
      controls.appendChild(authority.wrapper);
    }
    var button = element('button', 'Apply simulation', 'apply-simulation');
    button.type = 'button';
    controls.appendChild(button);
    var result = element('p', null, 'status simulation-result');
    controls.appendChild(result);
    button.addEventListener('click', function () {
      var body = { fiscal_device: device.select.value };
      if (authority && authority.select.value) body.authority = authority.select.value;
      button.disabled = true;
      api('PUT', '/v1/registers/' + encodeURIComponent(register.id) + '/simulation', merchantId, body).then(function (simulation) {
        result.className = 'status simulation-result ok';
        result.textContent = 'Simulation in force: fiscal_device ' + simulation.fiscal_device + (simulation.authority ? ', authority ' + simulation.authority : '');
      }, function (error) {
        result.className = 'status simulation-result error';
        result.textContent = describeError(error);
      }).then(function () {
        button.disabled = false;
      });
    });
    return controls;
  }

  function registerCard(merchantId, register) {
    var card = element('div', null, 'card register');
    card.dataset.registerId = register.id;
    card.appendChild(element('h3', register.name));
    var fiscalization = register.fiscalization;
    var rows = [
      ['id', register.id],
      ['status', register.status],
      ['fiscalization_status', register.fiscalization_status],
      ['regime', fiscalization ? fiscalization.regime : null],
      ['tse_serial', fiscalization ? fiscalization.tse_serial : null],
      ['client_id', fiscalization ? fiscalization.client_id : null],
    ];
    if (fiscalization && fiscalization.regime === 'RKSV') {
      var registration = fiscalization.rksv && fiscalization.rksv.registration;
      rows.push(['rksv.registration.status', registration ? registration.status : 'none']);
    }
    card.appendChild(definitionList(rows));
    card.appendChild(simulationControls(merchantId, register));
    return card;
  }

  function loadRegisters(merchantId) {
    var container = byId('registers');
    clear(container);
    setStatus('registers-status', 'Loading...');
    api('GET', '/v1/registers', merchantId).then(function (page) {
      if (merchantId !== selectedMerchant()) return;
      page.data.forEach(function (register) { container.appendChild(registerCard(merchantId, register)); });
      setStatus('registers-status', page.data.length === 0 ? 'No registers.' : '');
    }, function (error) {
      failed('registers-status', error);
    });
  }

  // ---- operations, their signatures and receipts ----

  /** The signed values of an operation, by its regime: what a receipt prints or a verifier checks. */
  function signatureRows(fiscal) {
    if (!fiscal) return [];
    if (fiscal.regime === 'KassenSichV') {
      return [['signature', fiscal.end_event ? fiscal.end_event.signature : null], ['qr_data', fiscal.verification ? fiscal.verification.qr_data : null]];
    }
    if (fiscal.regime === 'RKSV') {
      return [['jws', fiscal.jws], ['qr_data', fiscal.verification ? fiscal.verification.qr_data : null]];
    }
    if (fiscal.regime === 'RT') {
      return [['document_number', fiscal.document_number], ['device_serial', fiscal.device_serial]];
    }
    return [];
  }

  function receiptCell(merchantId, receiptId) {
    var cell = element('td', null, 'receipt');
    if (!receiptId) {
      cell.textContent = '-';
      return cell;
    }
    cell.textContent = 'Loading...';
    api('GET', '/v1/receipts/' + encodeURIComponent(receiptId), merchantId).then(function (receipt) {
      clear(cell);
      cell.appendChild(safeLink(receipt.links.hosted, 'Receipt page'));
    }, function (error) {
      cell.textContent = describeError(error);
    });
    return cell;
  }

  function loadOperations(merchantId) {
    var body = byId('operations');
    clear(body);
    setStatus('operations-status', 'Loading...');
    api('GET', '/v1/operations?limit=' + OPERATION_LIMIT, merchantId).then(function (page) {
      if (merchantId !== selectedMerchant()) return;
      page.data.forEach(function (operation) {
        var row = element('tr', null, 'operation');
        row.dataset.operationId = operation.id;
        row.appendChild(element('td', operation.created_at));
        row.appendChild(element('td', operation.type));
        row.appendChild(element('td', operation.status));
        row.appendChild(element('td', operation.total_amount ? operation.total_amount + ' ' + (operation.currency || '') : '-'));
        row.appendChild(element('td', operation.register_id || '-', 'value'));
        var signature = element('td', null, 'signature');
        var rows = signatureRows(operation.fiscal_information);
        if (rows.length === 0) signature.textContent = '-';
        else signature.appendChild(definitionList(rows));
        row.appendChild(signature);
        row.appendChild(receiptCell(merchantId, operation.receipt_id));
        body.appendChild(row);
      });
      setStatus('operations-status', page.data.length === 0 ? 'No operations.' : 'The last ' + page.data.length + ', newest first.');
    }, function (error) {
      failed('operations-status', error);
    });
  }

  // ---- exports ----

  function loadExports(merchantId) {
    var body = byId('exports');
    clear(body);
    setStatus('exports-status', 'Loading...');
    api('GET', '/v1/exports?limit=' + EXPORT_LIMIT, merchantId).then(function (page) {
      if (merchantId !== selectedMerchant()) return;
      page.data.forEach(function (job) {
        var row = element('tr', null, 'export');
        row.appendChild(element('td', job.created_at));
        row.appendChild(element('td', job.type));
        row.appendChild(element('td', job.status + (job.error ? ': ' + job.error.message : '')));
        row.appendChild(element('td', job.from + ' to ' + job.to));
        var download = element('td');
        if (job.download_url) download.appendChild(safeLink(job.download_url, 'Download'));
        else download.textContent = '-';
        row.appendChild(download);
        body.appendChild(row);
      });
      setStatus('exports-status', page.data.length === 0 ? 'No exports.' : '');
    }, function (error) {
      failed('exports-status', error);
    });
  }

  // ---- webhook endpoints and their deliveries ----

  function deliveryLine(delivery) {
    var latest = delivery.attempts && delivery.attempts[0];
    var outcome = latest ? (latest.status_code !== null ? 'HTTP ' + latest.status_code : latest.error || 'no answer') : 'not attempted yet';
    return element('li', delivery.created_at + ' ' + delivery.event_type + ': ' + delivery.status + ', ' + delivery.attempt_count + ' attempt(s), last ' + outcome);
  }

  // Only the named fields are shown: a signing secret is never read, even if a response carried one.
  function webhookCard(merchantId, endpoint) {
    var card = element('div', null, 'card webhook');
    card.appendChild(element('h3', withoutCredentials(endpoint.url), 'value'));
    card.appendChild(definitionList([
      ['id', endpoint.id],
      ['events', endpoint.events.join(', ')],
      ['description', endpoint.description],
      ['created_at', endpoint.created_at],
    ]));
    card.appendChild(element('p', 'Recent deliveries', 'status'));
    var list = element('ul', null, 'deliveries');
    card.appendChild(list);
    api('GET', '/v1/webhook-endpoints/' + encodeURIComponent(endpoint.id) + '/deliveries?limit=' + DELIVERY_LIMIT, merchantId).then(function (page) {
      if (page.data.length === 0) list.appendChild(element('li', 'None yet.'));
      page.data.forEach(function (delivery) { list.appendChild(deliveryLine(delivery)); });
    }, function (error) {
      list.appendChild(element('li', describeError(error)));
    });
    return card;
  }

  function loadWebhooks(merchantId) {
    var container = byId('webhooks');
    clear(container);
    setStatus('webhooks-status', 'Loading...');
    api('GET', '/v1/webhook-endpoints?limit=' + WEBHOOK_LIMIT, merchantId).then(function (page) {
      if (merchantId !== selectedMerchant()) return;
      page.data.forEach(function (endpoint) { container.appendChild(webhookCard(merchantId, endpoint)); });
      setStatus('webhooks-status', page.data.length === 0 ? 'No webhook endpoints.' : '');
    }, function (error) {
      failed('webhooks-status', error);
    });
  }

  function start() {
    byId('key-form').addEventListener('submit', connect);
    byId('forget-key').addEventListener('click', function () {
      forgetKey();
      setStatus('key-status', 'The key is forgotten.');
    });
    byId('merchant-select').addEventListener('change', loadMerchant);
    byId('refresh').addEventListener('click', loadMerchant);
    // A reload of the tab keeps the session: the stored key is used again, never shown.
    if (storedKey()) loadMerchants();
  }

  start();
})();
`;
