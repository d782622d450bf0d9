// A private, real Kafka broker (KRaft, one node) for tests that must SIGKILL or cut Kafka without
// touching the shared one on 9092: the jars scripts/stack-up.sh fetched, its server.properties
// template rendered with free ports and a temporary data directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const libs = process.env.KAFKA_LIBS ?? path.join(root, '.stack/kafka/libs');
const java = (args: string[]) => [
  '-cp',
  `${libs}/*`,
  `-Dlog4j2.configurationFile=${root}scripts/kafka/log4j2.xml`,
  ...args,
];

export interface BrokerOptions {
  /**
   * Also serve clients through a proxy that the test controls (`proxy`): a second listener
   * advertised at the proxy's port, so a client bootstrapped there talks to the broker only
   * through it. `onProduceAnswer` sees each Produce answer before it is forwarded.
   */
  proxied?: boolean;
}

export type KafkaBroker = Awaited<ReturnType<typeof startKafkaBroker>>;

export async function startKafkaBroker(opts: BrokerOptions = {}) {
  const [port, controllerPort, innerPort, proxyPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-kafka-'));
  const props = path.join(dir, 'server.properties');
  let text = readFileSync(path.join(root, 'scripts/kafka/server.properties.template'), 'utf8')
    .replaceAll('@KAFKA_PORT@', String(port))
    .replaceAll('@KAFKA_CONTROLLER_PORT@', String(controllerPort))
    .replaceAll('@KAFKA_DATA_DIR@', path.join(dir, 'data'));
  if (opts.proxied) {
    // Later lines win in a Java properties file.
    text += [
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort},PROXIED://127.0.0.1:${innerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort},PROXIED://127.0.0.1:${proxyPort}`,
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT',
      '',
    ].join('\n');
  }
  writeFileSync(props, text);
  // A cluster id is 16 random bytes, base64url without padding (what StorageTool random-uuid prints);
  // like Kafka's own, never one starting with '-', which the tool would read as an option.
  let clusterId: string;
  do clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  await run(java(['kafka.tools.StorageTool', 'format', '--standalone', '-t', clusterId, '-c', props]), dir).catch(
    (err: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    },
  );

  let proc: ChildProcess | undefined;
  const brokers = `127.0.0.1:${port}`;
  const proxy = opts.proxied ? await startProduceProxy(proxyPort, innerPort) : undefined;

  async function start(): Promise<void> {
    // C1 only and the serial collector: a faster start, fewer threads on a shared 2-core machine.
    const jvm = ['-Xmx384m', '-Xms128m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', `-Dkafka.logs.dir=${dir}`];
    proc = spawn('java', [...jvm, ...java(['kafka.Kafka', props])], {
      stdio: 'ignore',
    });
    // Never outlives the test process, even when a hook times out before close() is reachable.
    const orphan = proc;
    process.once('exit', () => orphan.kill('SIGKILL'));
    const admin = new Kafka({
      brokers: [brokers],
      clientId: 'broker-probe',
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    const deadline = Date.now() + 180_000; // a restart after SIGKILL recovers its logs first
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`kafka broker exited (${proc.exitCode}); see ${dir}/kafka.log`);
      try {
        await portOpen(port);
        await admin.connect();
        await admin.describeCluster();
        await admin.disconnect();
        return;
      } catch (err) {
        await admin.disconnect().catch(() => {});
        if (Date.now() > deadline)
          throw new Error(`kafka broker not up within 180 s: ${String(err)}; see ${dir}/kafka.log`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** SIGKILL, as a crashed host: no controlled shutdown. */
  async function kill(): Promise<void> {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    /** For KAFKA_BROKERS: the direct listener. */
    brokers,
    /** For KAFKA_BROKERS of a client that must go through `proxy` (opts.proxied). */
    proxiedBrokers: `127.0.0.1:${proxyPort}`,
    proxy,
    start,
    kill,
    async close() {
      await kill();
      await proxy?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function portOpen(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

function run(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('java', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`java ${args.join(' ')}: ${code}\n${err}`))));
  });
}

/** Splits a Kafka byte stream into frames (int32 size, then that many bytes). */
function framer(onFrame: (frame: Buffer) => void) {
  let buf = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      const size = buf.readInt32BE(0);
      onFrame(buf.subarray(0, 4 + size));
      buf = buf.subarray(4 + size);
    }
  };
}

const PRODUCE = 0;

/**
 * A TCP proxy that reads the Kafka protocol just enough to know which answers are Produce
 * answers (request header: api key, version, correlation id; answer header: correlation id).
 * `onProduceAnswer` decides whether to forward one; held answers never reach the client.
 */
async function startProduceProxy(listenPort: number, upstreamPort: number) {
  let onProduceAnswer: (() => 'forward' | 'drop') | undefined;
  let refusing = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = net.connect({ host: '127.0.0.1', port: upstreamPort });
    const produces = new Set<number>();
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on(
      'data',
      framer((frame) => {
        if (frame.readInt16BE(4) === PRODUCE) produces.add(frame.readInt32BE(8));
        upstream.write(frame);
      }),
    );
    upstream.on(
      'data',
      framer((frame) => {
        const correlationId = frame.readInt32BE(4);
        if (produces.delete(correlationId) && onProduceAnswer?.() === 'drop') return;
        client.write(frame);
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  return {
    /** Called for each Produce answer: 'drop' keeps it from the client. */
    set onProduceAnswer(fn: (() => 'forward' | 'drop') | undefined) {
      onProduceAnswer = fn;
    },
    /** Closes every connection and refuses new ones (the broker unreachable) until mend(). */
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    mend() {
      refusing = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
