// vitest's webdriverio provider on drivers we start ourselves
// (scripts/browsers.mjs), for Firefox ESR and WebKitGTK.
import { WebdriverBrowserProvider, webdriverio } from '@vitest/browser-webdriverio';
import { CAPABILITIES, missingFor, startDriver } from './browsers.mjs';

/**
 * vitest's webdriverio provider for `engine` ('firefox' or 'webkit'), on a
 * driver started here when the browser opens and stopped when it closes.
 */
export function webdriverProvider(engine) {
  return { ...webdriverio(), providerFactory: (project) => new LocalDriverProvider(project, engine) };
}

class LocalDriverProvider extends WebdriverBrowserProvider {
  constructor(project, engine) {
    // The provider reads hostname and port from this object when it opens the browser.
    const options = { capabilities: CAPABILITIES[engine] };
    super(project, options);
    this.engine = engine;
    this.driverOptions = options;
  }

  async openBrowser() {
    if (!this.driver) {
      const missing = missingFor(this.engine);
      if (missing.length) throw new Error(`${this.engine}: ${missing.join(', ')} missing: run \`node scripts/setup.mjs --test\``);
      this.driver = startDriver(this.engine);
      const { hostname, port } = await this.driver;
      Object.assign(this.driverOptions, { hostname, port });
    }
    await this.driver;
    return super.openBrowser();
  }

  // vitest sets browserName to its own name for the engine ('safari' for
  // WebKit): ours wins.
  buildCapabilities() {
    return { ...super.buildCapabilities(), ...CAPABILITIES[this.engine] };
  }

  async close() {
    try {
      await super.close();
    } finally {
      (await this.driver?.catch(() => undefined))?.stop();
    }
  }
}
