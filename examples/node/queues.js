// A Switchboard gRPC client in Node (docs/api.md#grpc): publishes COUNT messages on a Publish
// stream, each answered in order once durable, then consumes them on a Consume stream with a
// credit of 2, acking each, and ends the stream. Exits 0 when every message came back once.
//
//   node queues.js HOST:PORT QUEUE [COUNT]
//
// Credentials, when the server has access keys: SWITCHBOARD_ACCESS_KEY and SWITCHBOARD_SECRET_KEY,
// sent as the metadata `authorization: Basic base64(ID:SECRET)` (docs/security.md#grpc-credentials).
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto', 'src', 'main', 'protobuf');
const definition = protoLoader.loadSync(path.join(PROTO, 'switchboard', 'v1', 'queues.proto'), {
  includeDirs: [PROTO],
  longs: String,
  defaults: true,
  oneofs: true,
});
const { Queues } = grpc.loadPackageDefinition(definition).switchboard.v1;

function metadata() {
  const md = new grpc.Metadata();
  const id = process.env.SWITCHBOARD_ACCESS_KEY;
  if (id) {
    const secret = process.env.SWITCHBOARD_SECRET_KEY || '';
    md.set('authorization', 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64'));
  }
  return md;
}

function publish(client, queue, count) {
  return new Promise((resolve, reject) => {
    const ids = [];
    const stream = client.Publish(metadata());
    stream.on('data', (answer) => ids.push(answer.id));
    stream.on('error', reject);
    stream.on('end', () =>
      ids.length === count ? resolve(ids) : reject(new Error(`${ids.length} of ${count} answered`)),
    );
    for (let i = 0; i < count; i++) {
      stream.write({ queue, message: { body: `job ${i}`, attributes: { n: { dataType: 'Number', stringValue: String(i) } } } });
    }
    stream.end();
  });
}

function consume(client, queue, count) {
  return new Promise((resolve, reject) => {
    const seen = new Set();
    let acked = 0;
    let held = 0;
    let most = 0;
    const stream = client.Consume(metadata());
    stream.on('data', (answer) => {
      if (answer.message) {
        held++;
        most = Math.max(most, held);
        seen.add(answer.message.id);
        stream.write({ ack: { receipt: answer.message.receipt } });
      } else if (answer.settled) {
        if (answer.settled.errorCode) {
          reject(new Error(`${answer.settled.errorCode}: ${answer.settled.errorMessage}`));
          return;
        }
        held--;
        if (++acked === count) {
          stream.end();
        }
      }
    });
    stream.on('error', reject);
    stream.on('end', () => resolve({ seen, most }));
    stream.write({ open: { queue, credit: 2 } });
  });
}

async function main() {
  const [target, queue, countText] = process.argv.slice(2);
  if (!target || !queue) {
    console.error('usage: node queues.js HOST:PORT QUEUE [COUNT]');
    process.exit(2);
  }
  const count = Number(countText || 10);
  const client = new Queues(target, grpc.credentials.createInsecure());
  const ids = await publish(client, queue, count);
  const { seen, most } = await consume(client, queue, count);
  client.close();
  const missing = ids.filter((id) => !seen.has(id));
  if (missing.length > 0 || seen.size !== count || most > 2) {
    throw new Error(`published ${count}, consumed ${seen.size}, missing ${missing}, most unacked ${most}`);
  }
  console.log(`published ${count}, consumed ${seen.size}, at most ${most} unacked`);
}

main().catch((e) => {
  console.error(`failed: ${e.message}`);
  process.exit(1);
});
