// Compiled with `tsc --strict` by test/surface.test.js: configs and sandboxes written with type
// annotations, not `satisfies`. The root's type goes from the config's annotation to the sandbox's:
// MountSandboxConfig (a root directory) makes a MountSandbox, MountSandboxConfig<null> a
// MountSandbox<null>, MountSandboxConfig<string | null> a MountSandbox<string | null>; and no
// sandbox that may lack a root passes for one that has it.
import {
  createMountSandbox,
  createMountSandboxAsync,
  sandboxConfigFrom,
  type MountSandbox,
  type MountSandboxConfig,
  type ProgramConfig,
  type ResolvedMountConfig,
} from 'mount-sandbox';

async function annotated(): Promise<void> {
  const cfg: MountSandboxConfig = {
    root: 'project',
    readonly: false,
    mounts: [{ source: '/tmp/cache', target: '/cache', readonly: true }],
  };
  const sb: MountSandbox = await createMountSandboxAsync(cfg);
  const sync: MountSandbox = createMountSandbox(cfg);
  const root: string = sb.getConfig().root;
  const resolved: ResolvedMountConfig = sync.getConfig();
  const child: MountSandbox = sb.restrict({ restrict: '/src' });

  const zonesOnly: MountSandboxConfig<null> = { root: null, mounts: [{ source: '/tmp/data', target: '/data' }] };
  const rootless: MountSandbox<null> = await createMountSandboxAsync(zonesOnly);
  const none: null = createMountSandbox(zonesOnly).getConfig().root;

  void [root, resolved, child, rootless, none];
}

async function notLoosened(program: ProgramConfig, rootOrNull: string | null): Promise<void> {
  // @ts-expect-error a MountSandboxConfig has a root directory: MountSandboxConfig<null> has none
  const nullRoot: MountSandboxConfig = { root: null, mounts: [] };
  // @ts-expect-error and MountSandboxConfig<string | null> may have none
  const maybe: MountSandboxConfig = { root: rootOrNull };

  const either: MountSandboxConfig<string | null> = { root: rootOrNull };
  const eitherSandbox: MountSandbox<string | null> = await createMountSandboxAsync(either);
  // @ts-expect-error a sandbox that may have no root is not a MountSandbox
  const wrong: MountSandbox = eitherSandbox;
  // @ts-expect-error its root may be null
  const wrongRoot: string = createMountSandbox(either).getConfig().root;

  const fromFile = sandboxConfigFrom(program);
  if (fromFile !== null) {
    // @ts-expect-error a program config's sandbox may have no root
    const alsoWrong: MountSandbox = createMountSandbox(fromFile);
    const fine: MountSandbox<string | null> = createMountSandbox(fromFile);
    void [alsoWrong, fine];
  }
  // @ts-expect-error unknown keys are refused as before (a misspelt readOnly)
  const misspelt: MountSandboxConfig = { root: 'project', readOnly: true };
  void [nullRoot, maybe, wrong, wrongRoot, misspelt];
}

void annotated;
void notLoosened;
