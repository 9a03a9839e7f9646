// The Bolt yardstick of docs/performance.md (BenchmarkBolt): the job of
// testdata/floor as a Bolt for JavaScript Socket Mode app. For each
// `/maildomain register <domain>` it acks, registers the domain at the PDD
// sandbox over HTTPS, posts the answer to response_url and a line to the
// ops channel.
//
// With BOLT_WORKERS unset or 0, each command works in its handler right
// after the ack, as Bolt's documentation writes a handler. With
// BOLT_WORKERS=8, at most eight commands work at once, like the floor's
// eight workers (and over as few connections).
//
// It reads the variables the benchmark sets for mailbot and serves /readyz
// (200 once the socket is connected) on MAILBOT_HTTP_ADDR. Node trusts the
// sandbox's authority through NODE_EXTRA_CA_CERTS.
'use strict';

const http = require('node:http');
const { App, LogLevel } = require('@slack/bolt');

const env = process.env;
const clientOptions = { slackApiUrl: env.SLACK_API_URL };
const app = new App({
  token: env.SLACK_BOT_TOKEN,
  appToken: env.SLACK_APP_TOKEN,
  socketMode: true,
  logLevel: LogLevel.ERROR,
  clientOptions,
  installerOptions: { clientOptions },
});

// slots bounds the commands at work; waiting holds the rest in order.
let slots = Number(env.BOLT_WORKERS) || Infinity;
const waiting = [];
const take = () => (slots > 0 ? (slots--, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve)));
const give = () => (waiting.length > 0 ? waiting.shift()() : slots++);

app.command('/maildomain', async ({ command, ack, respond, client }) => {
  await ack();
  await take();
  try {
    await register(command, respond, client);
  } finally {
    give();
  }
});

async function register(command, respond, client) {
  const domain = command.text.split(' ')[1] ?? '';
  let text = 'failed';
  try {
    const res = await fetch(`${env.PDD_BASE_URL}/api2/admin/domain/register`, {
      method: 'POST',
      headers: { PddToken: env.PDD_TOKEN },
      body: new URLSearchParams({ domain }),
    });
    text = await res.text();
  } catch (err) {
    console.error('register', domain, err);
  }
  await respond({ text, response_type: 'ephemeral' });
  await client.chat.postMessage({ channel: env.MAILBOT_OPS_CHANNEL, text: `<@${command.user_id}> registered ${domain}` });
}

let ready = false;
const { hostname, port } = new URL(`http://${env.MAILBOT_HTTP_ADDR}`);
const health = http.createServer((req, res) => {
  res.statusCode = req.url === '/readyz' ? (ready ? 200 : 503) : 404;
  res.end();
});
health.listen(Number(port), hostname);

process.on('SIGTERM', async () => {
  await app.stop();
  health.close();
  process.exit(0);
});

app.start().then(() => { ready = true; }, (err) => {
  console.error('bolt:', err);
  process.exit(1);
});
