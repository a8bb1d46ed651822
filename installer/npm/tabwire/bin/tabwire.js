#!/usr/bin/env node
// tabwire's npm launcher: finds the native binary in this platform's package
// (@tabwire/<os>-<cpu>, an optional dependency npm installs only where its
// "os" and "cpu" match) and runs it with this process's stdin, stdout and
// stderr. Nothing passes through Node: the child owns the same file
// descriptors, so `tabwire serve`'s protocol bytes go straight to the MCP
// client. Exits with the binary's status; signals sent here reach the binary.
"use strict";

const { spawn } = require("child_process");

// process.platform + " " + process.arch -> the package holding that build.
const PACKAGES = {
  "linux x64": "@tabwire/linux-x64",
  "linux arm64": "@tabwire/linux-arm64",
  "darwin x64": "@tabwire/darwin-x64",
  "darwin arm64": "@tabwire/darwin-arm64",
  "win32 x64": "@tabwire/win32-x64",
};

function fail(message) {
  process.stderr.write(`tabwire: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  // A build of your own, for trying one out through npx.
  if (process.env.TABWIRE_BINARY) return process.env.TABWIRE_BINARY;
  const platform = `${process.platform} ${process.arch}`;
  const pkg = PACKAGES[platform];
  const fromSource =
    "build it from source instead (https://rustup.rs, then installer/install.sh in a checkout)";
  if (!pkg) {
    fail(`there is no prebuilt tabwire for ${platform}; ${fromSource}.`);
  }
  const exe = process.platform === "win32" ? "tabwire.exe" : "tabwire";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch (_) {
    fail(
      `the package ${pkg}, which holds tabwire's program for ${platform}, is not installed. ` +
        `npm installs it with tabwire unless optional dependencies are turned off ` +
        `(--omit=optional, --no-optional): install again without that, or ${fromSource}.`
    );
  }
}

const child = spawn(binaryPath(), process.argv.slice(2), {
  stdio: "inherit",
  env: Object.assign({}, process.env, { TABWIRE_LAUNCHER: "npm" }),
  windowsHide: true,
});

// Forward the signals a client or terminal sends to the launcher. (A
// terminal's Ctrl-C reaches both processes; tabwire handles a repeat.)
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGBREAK"];
const forwarders = {};
for (const sig of SIGNALS) {
  forwarders[sig] = () => {
    try {
      child.kill(sig);
    } catch (_) {
      // Already gone.
    }
  };
  try {
    process.on(sig, forwarders[sig]);
  } catch (_) {
    // Not a signal on this platform.
  }
}

child.on("error", (err) => {
  fail(`could not start ${err.path || "the tabwire binary"}: ${err.message}`);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so whoever started us sees how it ended.
    for (const sig of SIGNALS) {
      try {
        process.removeListener(sig, forwarders[sig]);
      } catch (_) { /* Not a signal on this platform. */ }
    }
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
