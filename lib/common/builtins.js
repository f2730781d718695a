'use strict';

// The Node built-ins the facade uses, taken from process.getBuiltinModule() where Node has it
// (20.16 and 22.3 on) rather than from require(). A bundle made with esbuild's --format=esm
// turns every require() of the code it bundles into a shim that throws ('Dynamic require of
// "util" is not supported'), which would make a bundled copy of the package fail at import;
// this way it imports, and creating a sandbox can say it was bundled (lib/common/native.js).
const childProcess = process.getBuiltinModule?.('child_process') ?? require('child_process');
const dgram = process.getBuiltinModule?.('dgram') ?? require('dgram');
const dns = process.getBuiltinModule?.('dns') ?? require('dns');
const fs = process.getBuiltinModule?.('fs') ?? require('fs');
const http = process.getBuiltinModule?.('http') ?? require('http');
const net = process.getBuiltinModule?.('net') ?? require('net');
const os = process.getBuiltinModule?.('os') ?? require('os');
const path = process.getBuiltinModule?.('path') ?? require('path');
const stream = process.getBuiltinModule?.('stream') ?? require('stream');
const util = process.getBuiltinModule?.('util') ?? require('util');

module.exports = { childProcess, dgram, dns, fs, http, net, os, path, stream, util };
