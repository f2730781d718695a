'use strict';

// An allowed name that does not resolve (issue 38): reported with a reason of its own
// ('unresolvable'), and the note says the policy allows it and that asking for permission will
// not help, where it used to send the model to ask the user for what it already had. Through
// the proxy (curl) and without it (Node's fetch, through the DNS stub).

const { testNeeding } = require('./helpers');
const { useWorld, worldNeeds } = require('./helpers/net-world');

jest.setTimeout(60_000);

const HOSTS = { 'example.test': 'server' };

const world = useWorld(HOSTS);

const ALLOWS_BUT = /Note: the sandbox's network policy allows this destination, but .*nowhere\.test:80 could not be resolved \(no DNS answer.*Asking the user to allow it will not help/;

describe('an allowed name that does not resolve', () => {
  testNeeding(worldNeeds('curl'))('curl through the proxy gets a 502 naming it; the note does not send the model to ask', async () => {
    const result = await world.current.exec(['sh', '-c', "curl -sS -o /dev/null -w '%{http_code}\\n' http://nowhere.test/x"], { network: { allow: ['nowhere.test'] } });
    expect(result.stdout).toBe('502\n');
    expect(result.network.denied).toEqual([{ host: 'nowhere.test', port: 80, reason: 'unresolvable', count: 1 }]);
    expect(result.stderr).toMatch(ALLOWS_BUT);
    expect(result.stderr).not.toMatch(/ask the user to allow a destination it needs/);
  });

  testNeeding(worldNeeds())("Node's fetch, by name through the DNS stub, gets the same report and note", async () => {
    const script = "fetch('http://nowhere.test/y').then((r) => console.log(r.status), (e) => console.log('fetch error', e.cause && e.cause.code))";
    const result = await world.current.exec(['node', '-e', script], { network: { allow: ['nowhere.test'] } });
    expect(result.stdout.trim()).toBe('502');
    expect(result.network.denied).toEqual([{ host: 'nowhere.test', port: 80, reason: 'unresolvable', count: 1 }]);
    expect(result.stderr).toMatch(ALLOWS_BUT);
  });
});
