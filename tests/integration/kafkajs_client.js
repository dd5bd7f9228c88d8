// An independent Kafka client (kafkajs, pure JavaScript: no librdkafka) for
// tests/integration/kafka_broker.sh.
//   node kafkajs_client.js produce BROKERS TOPIC KEY=VALUE...   (acks=all, idempotent)
//   node kafkajs_client.js consume BROKERS TOPIC N               (prints N "key=value" lines)
// Resolves kafkajs from $CUZK_ORACLES/node_modules.
'use strict';
const path = require('path');
const oracles = process.env.CUZK_ORACLES || path.join(__dirname, '..', 'oracles');
const { Kafka, logLevel } = require(path.join(oracles, 'node_modules', 'kafkajs'));

async function main() {
  const [cmd, brokers, topic, ...rest] = process.argv.slice(2);
  const kafka = new Kafka({ clientId: 'cuzk-it', brokers: brokers.split(','), logLevel: logLevel.ERROR });
  if (cmd === 'produce') {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const messages = rest.map((kv) => {
      const i = kv.indexOf('=');
      return { key: kv.slice(0, i), value: kv.slice(i + 1) };
    });
    await producer.send({ topic, acks: -1, messages });
    await producer.disconnect();
  } else if (cmd === 'consume') {
    const want = parseInt(rest[0], 10);
    const consumer = kafka.consumer({ groupId: `cuzk-it-kafkajs-${process.pid}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const got = [];
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timeout: ${got.length}/${want} messages`)), 60000);
      consumer.run({
        eachMessage: async ({ message }) => {
          got.push(`${message.key}=${message.value}`);
          if (got.length >= want) { clearTimeout(timer); resolve(); }
        },
      }).catch(reject);
    });
    await consumer.disconnect();
    process.stdout.write(got.join('\n') + '\n');
  } else {
    throw new Error(`unknown command ${cmd}`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e.message || e); process.exit(1); });
