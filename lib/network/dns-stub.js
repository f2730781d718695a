'use strict';

// What the network judge's DNS stub answers (the packets and the socket loop are in
// lib/network/dns.js): an allowed name gets its own loopback address, which the captured ports
// (lib/network/capture.js) map back to it; a refused one gets NXDOMAIN and a line in the report.
// Nothing is forwarded, so no lookup leaves the machine.

const dnsCodec = require('./dns');
const { canonicalIp } = require('./destination');

// The response to one decoded query.
/** @param {import('./judge').Judging} judging */
function answerDns(judging, query) {
  const { RCODE } = dnsCodec;
  if (query.error) return dnsCodec.encodeResponse(query, query.error === 'opcode' ? RCODE.NOTIMP : RCODE.FORMERR);
  const { name, type, qclass } = query.question;
  if (qclass !== dnsCodec.CLASS_IN) return dnsCodec.encodeResponse(query, RCODE.REFUSED);
  if (name === null || canonicalIp(name)) return dnsCodec.encodeResponse(query, RCODE.NXDOMAIN);
  const refusal = judging.dialer.nameRefusal(name);
  if (refusal) {
    judging.report.refused(name, null, refusal);
    return dnsCodec.encodeResponse(query, RCODE.NXDOMAIN);
  }
  // AAAA, HTTPS, SVCB and every other type of an allowed name: the name exists, with no data
  // of that type (an NXDOMAIN here would make resolvers forget the A answer).
  if (type !== dnsCodec.TYPE_A) return dnsCodec.encodeResponse(query, RCODE.NOERROR);
  const address = judging.names.addressFor(name);
  if (!address) {
    judging.report.refused(name, null, 'too-many-names');
    return dnsCodec.encodeResponse(query, RCODE.SERVFAIL);
  }
  return dnsCodec.encodeResponse(query, RCODE.NOERROR, { address, ttl: 60 });
}

module.exports = { answerDns };
