/**
 * vaultgate companion: registers the /vaultgate/v1 routes on the Local REST API once both
 * plugins are loaded, and removes them when the companion unloads.
 */
import { Notice, Plugin } from "obsidian";
import { getAPI, type LocalRestApiPublicApi } from "obsidian-local-rest-api";
import { registerRoutes } from "./routes";

export default class VaultgateCompanion extends Plugin {
  private api: LocalRestApiPublicApi | undefined;

  async onload(): Promise<void> {
    // The Local REST API may load after us; try now and again when the layout is ready.
    this.register(() => this.api?.unregister());
    if (!this.tryRegister()) {
      this.app.workspace.onLayoutReady(() => {
        if (!this.tryRegister()) {
          new Notice("vaultgate companion: the Local REST API plugin is not enabled; no routes added.");
        }
      });
    }
  }

  private tryRegister(): boolean {
    if (this.api) return true;
    const api = getAPI(this.app, this.manifest);
    if (!api) return false;
    registerRoutes(api, this.app, this.manifest.version);
    this.api = api;
    return true;
  }
}
