'use strict';

// The servers of the network world (see net-world.js), run by net-world-runner.js inside a network
// namespace of their own, joined to the runner's by a veth pair. It waits for the runner to move
// the veth end in ("net" on stdin), takes 198.51.100.2/24 (TEST-NET-2) and 10.0.0.7/32 (so that a
// name that "rebinds" to a private address has something to reach), then serves:
//   80/tcp   HTTP: the npm registry (Host registry.test), git over dumb HTTP (Host git.test, /repo.git), and
//            for any other Host a line naming what it saw
//   443/tcp  the same over TLS, one certificate for every test name (test/fixtures/net)
//   7000/tcp an echo; 7000/udp logs each datagram
// Each connection and request is printed to stdout as a JSON line { log: { host, method, path,
// kind, ... } }, so that a test can show that a refused request never arrived. "flush <id>" on
// stdin answers { flushed: id } after every line printed before it.
//
//   node net-world-servers.js <config JSON: { dir, fixtures }>
const fs = require('fs');
const net = require('net');
const tls = require('tls');
const http = require('http');
const path = require('path');
const dgram = require('dgram');
const crypto = require('crypto');
const readline = require('readline');
const { execFileSync } = require('child_process');

const config = JSON.parse(process.argv[2]);
const PACKAGE = 'hello-msb';
const VERSION = '1.0.0';

function print(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function log(entry) {
  print({ log: { host: null, method: null, path: null, ...entry, time: Date.now() } });
}

function sh(file, args, options = {}) {
  return execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }).toString();
}

// A tiny package, packed with npm, and its packument as a registry serves it.
function makePackage() {
  const src = path.join(config.dir, 'pkg', 'package');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({
    name: PACKAGE, version: VERSION, description: 'test package of the network world', main: 'index.js', license: 'MIT',
  }));
  fs.writeFileSync(path.join(src, 'index.js'), "module.exports = 'hello from the registry';\n");
  const out = path.join(config.dir, 'pkg');
  const env = { PATH: process.env.PATH, HOME: out, npm_config_cache: path.join(out, 'cache'), npm_config_update_notifier: 'false' };
  const name = sh('npm', ['pack', '--silent', '--pack-destination', out], { cwd: src, env }).trim().split('\n').pop();
  const tarball = fs.readFileSync(path.join(out, name));
  const shasum = crypto.createHash('sha1').update(tarball).digest('hex');
  const integrity = `sha512-${crypto.createHash('sha512').update(tarball).digest('base64')}`;
  const packument = {
    name: PACKAGE,
    'dist-tags': { latest: VERSION },
    versions: {
      [VERSION]: {
        name: PACKAGE, version: VERSION, main: 'index.js', license: 'MIT',
        dist: { tarball: `http://registry.test/${PACKAGE}/-/${PACKAGE}-${VERSION}.tgz`, shasum, integrity },
      },
    },
  };
  return { tarball, packument };
}

// A bare repository with one commit, prepared for git's dumb HTTP protocol (plain files).
function makeRepo() {
  const work = path.join(config.dir, 'repo-work');
  const bare = path.join(config.dir, 'git', 'repo.git');
  const env = {
    PATH: process.env.PATH, HOME: config.dir, GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'World', GIT_AUTHOR_EMAIL: 'world@git.test', GIT_COMMITTER_NAME: 'World', GIT_COMMITTER_EMAIL: 'world@git.test',
  };
  fs.mkdirSync(work, { recursive: true });
  sh('git', ['init', '-q', '-b', 'main', work], { env });
  fs.writeFileSync(path.join(work, 'README'), 'cloned from git.test\n');
  sh('git', ['-C', work, 'add', 'README'], { env });
  sh('git', ['-C', work, 'commit', '-q', '-m', 'first'], { env });
  sh('git', ['clone', '-q', '--bare', work, bare], { env });
  sh('git', ['-C', bare, 'update-server-info'], { env });
  return path.join(config.dir, 'git');
}

function serveFile(res, file) {
  fs.readFile(file, (err, data) => {
    if (err) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
      res.end(data);
    }
  });
}

function handler(kind, pkg, gitRoot) {
  return (req, res) => {
    const host = String(req.headers.host || '').replace(/:\d+$/, '').toLowerCase();
    const url = new URL(req.url, 'http://x');
    log({ host, method: req.method, path: req.url, kind, sni: req.socket.servername || null });
    req.resume();
    if (host === 'registry.test' && url.pathname === `/${PACKAGE}`) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(pkg.packument));
    } else if (host === 'registry.test' && url.pathname === `/${PACKAGE}/-/${PACKAGE}-${VERSION}.tgz`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': pkg.tarball.length });
      res.end(pkg.tarball);
    } else if (host === 'git.test' && url.pathname.startsWith('/repo.git/')) {
      const file = path.normalize(path.join(gitRoot, decodeURIComponent(url.pathname)));
      if (!file.startsWith(`${gitRoot}/`)) {
        res.writeHead(404);
        res.end();
      } else {
        serveFile(res, file);
      }
    } else {
      const body = `hello from ${host || '(no host)'} ${req.method} ${url.pathname} over ${kind}\n`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }
  };
}

function listenOn(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', resolve);
  });
}

function logConnections(server, kind, port) {
  server.on(kind === 'tls' ? 'secureConnection' : 'connection', (socket) => {
    log({ kind: `${kind}-connection`, port, local: socket.localAddress, sni: socket.servername || null });
  });
}

async function serve() {
  const pkg = makePackage();
  const gitRoot = makeRepo();
  const fixtures = config.fixtures;
  const httpServer = http.createServer(handler('http', pkg, gitRoot));
  logConnections(httpServer, 'tcp', 80);
  // HTTP on a port no entry names, as development servers and APIs listen.
  const otherPort = http.createServer(handler('http', pkg, gitRoot));
  logConnections(otherPort, 'tcp', 8080);
  const tlsOptions = {
    key: fs.readFileSync(path.join(fixtures, 'server-key.pem')),
    cert: fs.readFileSync(path.join(fixtures, 'server.pem')),
  };
  // TLS first, then HTTP on top: the handshake (with its SNI) is logged even when no request follows.
  const httpsInner = http.createServer(handler('https', pkg, gitRoot));
  const tlsServer = tls.createServer(tlsOptions, (socket) => httpsInner.emit('connection', socket));
  logConnections(tlsServer, 'tls', 443);
  tlsServer.on('tlsClientError', () => {});
  const echo = net.createServer((socket) => {
    log({ kind: 'echo-connection', port: 7000, local: socket.localAddress });
    socket.on('error', () => {});
    socket.on('data', (data) => log({ kind: 'echo-data', port: 7000, path: data.toString('utf8').slice(0, 60) }));
    socket.pipe(socket);
  });
  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg, from) => log({ kind: 'udp', port: 7000, path: msg.toString('utf8').slice(0, 60), from: from.address }));
  await Promise.all([listenOn(httpServer, 80), listenOn(otherPort, 8080), listenOn(tlsServer, 443), listenOn(echo, 7000)]);
  await new Promise((resolve) => udp.bind(7000, '0.0.0.0', resolve));
  print({ ready: true, package: PACKAGE, version: VERSION });
}

function takeNetwork(iface) {
  sh('ip', ['link', 'set', 'lo', 'up']);
  sh('ip', ['addr', 'add', '198.51.100.2/24', 'dev', iface]);
  sh('ip', ['addr', 'add', '10.0.0.7/32', 'dev', iface]);
  sh('ip', ['link', 'set', iface, 'up']);
}

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  const [word, arg] = line.split(' ');
  if (word === 'net') {
    try {
      takeNetwork(arg);
      serve().catch((err) => {
        print({ error: `servers: ${err.message}` });
        process.exit(1);
      });
    } catch (err) {
      print({ error: `servers: network setup failed: ${err.message}` });
      process.exit(1);
    }
  } else if (word === 'flush') {
    print({ flushed: arg });
  }
});
input.on('close', () => process.exit(0));
print({ waiting: process.pid });
