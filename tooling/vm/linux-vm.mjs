// A throwaway Linux machine for tests that need a kernel set up otherwise than this one: Debian's own
// kernel under qemu, booted with cgroup v2 alone (this machine mounts cgroup v1), its root file system
// this machine's own `/` shared read-only over 9p with a tmpfs over it, so the checkout, node and bwrap
// are the same files. A job is a shell script run as root once the machine is up; it writes what it
// finds into /job, a directory shared read-write with the test. Software emulation (TCG): nested KVM
// hangs in the kernel's decompressor on this kind of machine; CONCH_VM_ACCEL=kvm tries it elsewhere.
//
//   node tooling/vm/linux-vm.mjs --prepare   fetch Debian's kernel and busybox (apt-get download) and
//                                            build the initramfs, into /var/tmp/conch-vm (as root)
//   node tooling/vm/linux-vm.mjs --run FILE  boot, run the script FILE, print its output
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const CACHE = process.env.CONCH_VM_CACHE ?? "/var/tmp/conch-vm";
const QEMU = "qemu-system-x86_64";
// Loaded in this order by the initramfs: virtio's PCI transport, 9p over it, overlayfs.
const MODULES = [
  "drivers/virtio/virtio_ring",
  "drivers/virtio/virtio",
  "drivers/virtio/virtio_pci_modern_dev",
  "drivers/virtio/virtio_pci_legacy_dev",
  "drivers/virtio/virtio_pci",
  "fs/netfs/netfs",
  "fs/fscache/fscache",
  "net/9p/9pnet",
  "net/9p/9pnet_virtio",
  "fs/9p/9p",
  "fs/overlayfs/overlay",
];

const INIT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in ${MODULES.map((m) => m.split("/").pop()).join(" ")}; do insmod /lib/modules/$m.ko || echo "vm: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288 host /lower || echo "vm: the host's / did not mount"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 job /job || echo "vm: /job did not mount"
mount -t tmpfs -o size=1g tmpfs /upper; mkdir /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || echo "vm: overlay failed"
mount --move /proc /newroot/proc; mount --move /sys /newroot/sys; mount --move /dev /newroot/dev
mkdir -p /newroot/job; mount --move /job /newroot/job
exec switch_root /newroot /bin/sh /job/stage2.sh
`;

// Run as the machine's init, on the host's files (writable: a tmpfs over them, so the checkout stays
// where it is, /var/tmp included): cgroup v2 alone at /sys/fs/cgroup, a fresh /run, loopback up; then
// the job, its exit code to /job/exit, and power off.
const STAGE2 = `mount -t proc proc /proc 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm; mount -t devpts -o ptmxmode=0666 devpts /dev/pts; ln -sf pts/ptmx /dev/ptmx 2>/dev/null
mount -t tmpfs tmpfs /dev/shm
ip link set lo up
export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 CI=true
. /job/env
sh /job/job.sh > /job/output 2>&1
echo $? > /job/exit
sync
echo o > /proc/sysrq-trigger
sleep 30
`;

/** The prepared kernel and initramfs, or null with what to run. */
function prepared() {
  const which = spawnSync(QEMU, ["--version"], { stdio: "ignore" });
  if (which.error !== undefined)
    return { missing: `${QEMU} is not installed: apt-get install qemu-system-x86` };
  const kernel = join(CACHE, "vmlinuz");
  const initrd = join(CACHE, "initrd.gz");
  if (!existsSync(kernel) || !existsSync(initrd)) {
    return { missing: `no kernel prepared in ${CACHE}: node tooling/vm/linux-vm.mjs --prepare` };
  }
  return { kernel, initrd };
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(
      `linux-vm: ${command} ${args.join(" ")} failed: ${result.error?.message ?? result.stderr ?? `exit ${result.status}`}`,
    );
  }
  return result.stdout;
}

/** Fetches Debian's current kernel and busybox-static, and builds the initramfs into the cache. */
function prepare() {
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error("linux-vm: x86_64 Linux only");
  const work = mkdtempSync("/var/tmp/conch-vm-prepare-");
  try {
    chmodSync(work, 0o777); // apt-get download drops to _apt where it can.
    const depends = run("apt-cache", ["depends", "linux-image-amd64"]);
    const image = /Depends: (linux-image-[0-9][^\s]*-amd64)\b/.exec(depends)?.[1];
    if (image === undefined)
      throw new Error(`linux-vm: apt-cache names no kernel for linux-image-amd64:\n${depends}`);
    run("apt-get", ["download", "-q", image, "busybox-static"], { cwd: work });
    const root = join(work, "root");
    for (const deb of readdirSync(work).filter((name) => name.endsWith(".deb"))) {
      run("dpkg-deb", ["-x", join(work, deb), root]);
    }
    const version = image.replace(/^linux-image-/, "");
    const initrd = join(work, "initrd");
    for (const dir of ["bin", "lib/modules", "proc", "sys", "dev", "lower", "upper", "newroot", "job"]) {
      mkdirSync(join(initrd, dir), { recursive: true });
    }
    copyFileSync(join(root, "bin", "busybox"), join(initrd, "bin", "busybox"));
    chmodSync(join(initrd, "bin", "busybox"), 0o755);
    for (const module of MODULES) {
      const from = join(root, "lib", "modules", version, "kernel", `${module}.ko`);
      copyFileSync(from, join(initrd, "lib", "modules", `${module.split("/").pop()}.ko`));
    }
    writeFileSync(join(initrd, "init"), INIT, { mode: 0o755 });
    const list = run("find", ["."], { cwd: initrd });
    const cpio = spawnSync(join(initrd, "bin", "busybox"), ["cpio", "-o", "-H", "newc"], {
      cwd: initrd,
      input: list,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (cpio.status !== 0) throw new Error(`linux-vm: cpio failed: ${cpio.stderr}`);
    const gzip = spawnSync("gzip", ["-1"], { input: cpio.stdout, maxBuffer: 64 * 1024 * 1024 });
    if (gzip.status !== 0) throw new Error(`linux-vm: gzip failed: ${gzip.stderr}`);
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, "initrd.gz.new"), gzip.stdout);
    copyFileSync(join(root, "boot", `vmlinuz-${version}`), join(CACHE, "vmlinuz.new"));
    renameSync(join(CACHE, "initrd.gz.new"), join(CACHE, "initrd.gz"));
    renameSync(join(CACHE, "vmlinuz.new"), join(CACHE, "vmlinuz"));
    writeFileSync(join(CACHE, "kernel-version"), `${version}\n`);
    return version;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Boots the machine, runs `script` (sh, as root) and powers off. Resolves with its exit code (null when
 * the machine never said: it crashed or timed out), its output, the console's last lines, and the job
 * directory's other files (what the script wrote into /job).
 */
export function runInVm(script, { timeoutMs = 20 * 60_000, memoryMb = 2048 } = {}) {
  const found = prepared();
  if ("missing" in found) return Promise.reject(new Error(`linux-vm: ${found.missing}`));
  const job = mkdtempSync("/var/tmp/conch-vm-job-");
  writeFileSync(join(job, "stage2.sh"), STAGE2);
  writeFileSync(join(job, "job.sh"), script);
  // The caller's node first on PATH: the machine runs the same one.
  writeFileSync(join(job, "env"), `export PATH='${dirname(process.execPath)}':"$PATH"\n`);
  const accel =
    process.env.CONCH_VM_ACCEL === "kvm" ? ["-enable-kvm", "-cpu", "host"] : ["-accel", "tcg", "-cpu", "max"];
  const qemu = spawn(
    QEMU,
    [
      ...accel,
      "-m",
      String(memoryMb),
      "-smp",
      "2",
      "-nographic",
      "-no-reboot",
      "-nic",
      "none",
      "-kernel",
      found.kernel,
      "-initrd",
      found.initrd,
      "-append",
      // Errors and worse on the console (a lockup, a panic), kept as the run's last lines.
      "console=ttyS0 loglevel=3 panic=-1",
      "-virtfs",
      "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
      "-virtfs",
      `local,path=${job},mount_tag=job,security_model=none`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let console_ = "";
  const keep = (chunk) => {
    console_ = (console_ + chunk.toString("utf8")).slice(-65_536);
  };
  qemu.stdout.on("data", keep);
  qemu.stderr.on("data", keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => qemu.kill("SIGKILL"), timeoutMs);
    qemu.on("error", (error) => {
      clearTimeout(timer);
      rmSync(job, { recursive: true, force: true });
      reject(error);
    });
    qemu.on("close", () => {
      clearTimeout(timer);
      const exitFile = join(job, "exit");
      const exitCode = existsSync(exitFile) ? Number.parseInt(readFileSync(exitFile, "utf8"), 10) : null;
      const output = existsSync(join(job, "output")) ? readFileSync(join(job, "output"), "utf8") : "";
      const files = {};
      for (const name of readdirSync(job)) {
        if (!["stage2.sh", "job.sh", "env", "exit", "output"].includes(name)) {
          files[name] = readFileSync(join(job, name), "utf8");
        }
      }
      rmSync(job, { recursive: true, force: true });
      resolve({ exitCode, output, console: console_, files });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [flag, file] = process.argv.slice(2);
  if (flag === "--prepare") {
    console.log(`linux-vm: prepared ${prepare()} in ${CACHE}`);
  } else if (flag === "--run" && file !== undefined) {
    const result = await runInVm(readFileSync(file, "utf8"));
    process.stdout.write(result.output);
    if (result.exitCode === null)
      process.stdout.write(`\nlinux-vm: the machine never finished; its console:\n${result.console}`);
    process.exit(result.exitCode ?? 1);
  } else {
    console.error("linux-vm: expected --prepare, or --run FILE");
    process.exit(2);
  }
}
