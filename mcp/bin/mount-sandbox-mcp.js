#!/usr/bin/env node
'use strict';

// mount-sandbox-mcp: serves a sandbox's file and shell tools over stdio (see lib/cli.js).
require('../lib/cli').main(process.argv.slice(2));
