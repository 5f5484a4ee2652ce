// The VS Code client of `rulebook lsp`: starts the server (the command in the setting
// `rulebook.server.command`, `rulebook lsp` by default) for `.rules` files and restarts it when
// the setting changes. Plain JavaScript, so the extension needs no build step.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const configured = vscode.workspace.getConfiguration("rulebook").get("server.command");
  const [command, ...args] = Array.isArray(configured) && configured.length
    ? configured : ["rulebook", "lsp"];
  // TransportKind.stdio adds `--stdio` to the arguments; `rulebook lsp` accepts it.
  return { command, args, transport: TransportKind.stdio };
}

async function start() {
  client = new LanguageClient("rulebook", "Rulebook language server", serverOptions(), {
    documentSelector: [
      { scheme: "file", language: "rules" },
      { scheme: "untitled", language: "rules" },
    ],
  });
  await client.start();
}

async function activate(context) {
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (event) => {
    if (event.affectsConfiguration("rulebook.server.command")) {
      if (client) await client.stop();
      await start();
    }
  }));
  context.subscriptions.push(vscode.commands.registerCommand("rulebook.restartServer",
    async () => {
      if (client) await client.stop();
      await start();
    }));
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
