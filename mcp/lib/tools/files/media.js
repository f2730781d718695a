'use strict';

// read_media_file: an image, audio or other file whole, base64-encoded with its MIME type.
const { FileTooLargeError } = require('../../mount-sandbox');
const { PATHS, READ, path, virtual, NO_BUDGET } = require('./common');

const MEDIA_TYPES = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.bmp': 'image/bmp', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.avif': 'image/avif',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.ogg': 'audio/ogg', '.flac': 'audio/flac', '.m4a': 'audio/mp4',
  '.pdf': 'application/pdf',
};

// Images and audio come back whole or not at all: a part of one is of no use. 5 MiB is about the
// largest image model APIs take.
const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

function mediaTypeOf(p) {
  const dot = p.lastIndexOf('.');
  return (dot > p.lastIndexOf('/') && MEDIA_TYPES[p.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

async function readMediaFile(args, ctx) {
  const p = virtual(args.path);
  const cap = ctx.limits.maxMediaBytes ?? MAX_MEDIA_BYTES;
  const { size, isDirectory } = await ctx.sandbox.stat(p);
  if (!isDirectory && size > cap) {
    throw new FileTooLargeError(p, size, cap);
  }
  // The bytes, their base64 and the reply's JSON of it, held until the reply is made. (The SDK
  // serializes the reply after the handler returns; that copy is the one not counted.)
  return (ctx.memory ?? NO_BUDGET).holding(4 * Math.min(size, cap + 1), async () => {
    const data = Buffer.from(await ctx.sandbox.readBinary(p, { offset: 0, length: cap + 1 }));
    if (data.length > cap) throw new FileTooLargeError(p, data.length, cap);
    const mimeType = mediaTypeOf(p);
    const base64 = data.toString('base64');
    if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: base64, mimeType }] };
    if (mimeType.startsWith('audio/')) return { content: [{ type: 'audio', data: base64, mimeType }] };
    return { content: [{ type: 'resource', resource: { uri: `sandbox://${encodeURI(p)}`, mimeType, blob: base64 } }] };
  });
}

const readMediaFileTool = {
  name: 'read_media_file',
  title: 'Read an image or audio file',
  description: 'Read a file and return it base64-encoded with its MIME type: images as image content, audio as audio ' +
    `content, anything else as an embedded resource. Files above the size cap are refused. ${PATHS}`,
  inputSchema: { path },
  annotations: READ,
  writes: false,
  handler: readMediaFile,
};

module.exports = { readMediaFileTool };
