package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The shipped bubblewrap template on real bwrap. Skipped where bwrap cannot run, unless
 * {@code WORKTARGET_REQUIRE_BWRAP=true} (as in CI), where a missing bwrap fails loudly.
 */
class BubblewrapIsolationTest {
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin", "HOME", "/nowhere");

    @TempDir
    Path base;
    Path root;
    ExecEngine engine;

    static boolean bwrapWorks() {
        try {
            Process p = new ProcessBuilder("bwrap", "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "/bin/true")
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        boolean works = bwrapWorks();
        if ("true".equalsIgnoreCase(System.getenv("WORKTARGET_REQUIRE_BWRAP"))) {
            assertThat(works).as("WORKTARGET_REQUIRE_BWRAP=true but bwrap is missing or cannot create namespaces "
                    + "(install the bubblewrap package)").isTrue();
        }
        Assumptions.assumeTrue(works, "bwrap is not usable here");
        root = Files.createDirectories(base.resolve("root"));
        Isolation iso = Isolation.fromConfig(ExecSettings.IsolationMode.CUSTOM, Isolation.defaultBubblewrapTemplate(), System::getenv);
        engine = ExecEngine.builder().isolation(iso).settings(ExecSettings.builder().killGrace(Duration.ofMillis(300)).build()).build();
    }

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.close();
        }
    }

    private ExecResult run(String command) throws ToolException {
        return run(command, 30_000L);
    }

    private ExecResult run(String command, long waitMs) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(root), ENV, waitMs, null, null));
    }

    @Test
    void jobWorksInsideItsRootDir() throws Exception {
        ExecResult r = run("pwd; echo made > made.txt; cat made.txt");
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).isEqualTo(root + "\nmade\n");
        assertThat(root.resolve("made.txt")).hasContent("made");
    }

    @Test
    void cwdRunsTheJobInThatDirectoryInsideTheSandbox() throws Exception {
        Path sub = Files.createDirectories(root.resolve("it's sub"));
        ExecResult r = engine.run(new ExecRequest("s", "pwd; echo made > made.txt", root(root), ENV, 30_000L, null, null,
                null, "it's sub"));
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).isEqualTo(sub + "\n");
        assertThat(sub.resolve("made.txt")).hasContent("made");
    }

    @Test
    void aJobThatStartsSomethingInTheBackgroundIsToldItEndedWithTheShell() throws Exception {
        ExecResult r = run("sleep 30 > /dev/null 2>&1 & echo started");

        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.hint()).isEqualTo("This server runs jobs in a sandbox with a process namespace of their own, so "
                + "what the command started in the background ('&') ended when its shell did. To keep a server or a "
                + "watcher running, run it in the foreground with waitMs 0: the job goes on, exec_tail shows its "
                + "output, exec_kill ends it.");
        assertThat(run("echo a && echo b").hint()).isNull();
    }

    @Test
    void aJobThatWritesIntoTheReadOnlySystemIsToldWhereItMayWrite() throws Exception {
        ExecResult r = run("touch /usr/wt-probe");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("Read-only file system");
        assertThat(r.hint()).startsWith("The command could not write '/usr/wt-probe': this server's sandbox keeps it "
                + "read-only. Jobs may write in the work directory, in HOME (/nowhere) and in /tmp;")
                .contains("python3 -m venv .venv");
        assertThat(run("touch made-here && ls made-here").hint()).isNull();
    }

    @Test
    void aJobThatCannotReachAHostInTheSandboxIsToldThereIsNoNetwork() throws Exception {
        ExecResult r = run("bash -c 'exec 3<>/dev/tcp/example.com/80'");

        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.stderr()).contains("Temporary failure in name resolution");
        assertThat(r.hint()).startsWith("This server runs jobs in a sandbox without a network, so the command could "
                + "not reach the host it named;").contains("ask the user to upload the files");
    }

    @Test
    void aJobInTheSandboxIsTheFirstTheOutOfMemoryKillerTakes() throws Exception {
        ExecResult r = run("cat /proc/self/oom_score_adj");
        assertThat(r.stdout()).isEqualTo("1000\n");
        assertThat(r.stderr()).isEmpty();
    }

    @Test
    void jobCannotReadAFileOutsideItsRootDir() throws Exception {
        Path secret = Files.writeString(base.resolve("secret.txt"), "top-secret");
        try (ExecEngine plain = ExecEngine.builder().build()) {
            ExecResult control = plain.run(new ExecRequest("s", "cat " + secret, root(root), ENV, 30_000L, null, null));
            assertThat(control.stdout()).contains("top-secret");
        }
        ExecResult r = run("cat " + secret);
        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.stdout()).doesNotContain("top-secret");
    }

    @Test
    void jobHasNoCapabilitiesEvenWhenTheServerRunsAsRoot() throws Exception {
        ExecResult r = run("grep -E '^Cap(Inh|Prm|Eff|Amb):' /proc/self/status");
        assertThat(r.stdout().lines().toList()).hasSize(4)
                .allSatisfy(l -> assertThat(l).as("no capability in the sandbox").endsWith("0000000000000000"));
    }

    @Test
    void jobCannotWriteTheKernelsSettings() throws Exception {
        // as root without capabilities a job could set kernel.core_pattern and run a program of its choosing as
        // root on the host; writing the value it has back changes nothing where the write is let through
        ExecResult r = run("cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern && echo WRITTEN");
        assertThat(r.stdout()).doesNotContain("WRITTEN");
        assertThat(r.stderr()).contains("Read-only file system");
    }

    @Test
    void jobCannotMountAFileSystem() throws Exception {
        // with capabilities a job could mount a cgroup hierarchy (and leave its group) or sysfs, proc, ...
        ExecResult r = run("mkdir -p /tmp/m && mount -t tmpfs none /tmp/m && echo MOUNTED");
        assertThat(r.stdout()).doesNotContain("MOUNTED");
        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void jobCannotOpenANetworkConnection() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String connect = "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + server.getLocalPort() + "' && echo CONNECTED";
            try (ExecEngine plain = ExecEngine.builder().build()) {
                ExecResult control = plain.run(new ExecRequest("s", connect, root(root), ENV, 30_000L, null, null));
                assertThat(control.stdout()).contains("CONNECTED");
            }
            ExecResult r = run(connect);
            assertThat(r.stdout()).doesNotContain("CONNECTED");
            assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        }
    }

    @Test
    void jobSeesOnlyTheSealedEnvironment() throws Exception {
        ExecResult r = run("env | sort");
        List<String> names = r.stdout().lines().map(l -> l.substring(0, l.indexOf('='))).toList();
        assertThat(names).containsExactlyInAnyOrder("HOME", "PATH", "PWD", ProcessTree.COOKIE_VAR);
    }

    @Test
    void jobDiesWithItsKill() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", "sleep 1000 & sh -c 'trap \"\" TERM; exec sleep 1000' & echo ready; wait",
                root(root), ENV, 0L, null, null));
        Await.until("ready", () -> {
            try {
                return engine.status("s", r.id()).stdout().contains("ready");
            } catch (ToolException e) {
                throw new AssertionError(e);
            }
        });
        // "ready" can be printed before the second background shell has exec'ed its sleep: wait for both
        Await.until("both sleeps running", () -> jobProcesses().stream()
                .filter(p -> p.info().command().orElse("").endsWith("sleep")).count() == 2);
        List<ProcessHandle> tree = jobProcesses();
        assertThat(engine.kill("s", r.id())).isTrue();
        for (ProcessHandle p : tree) {
            Await.processGone(p.pid());
        }
        assertThat(engine.await("s", r.id(), 30_000).status()).isEqualTo(JobStatus.KILLED);
    }

    /** This JVM's descendants that are the job's processes: bwrap, the shells and the sleeps. */
    private static List<ProcessHandle> jobProcesses() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("sleep") || c.endsWith("bwrap") || c.endsWith("sh"))
                        .orElse(false))
                .toList();
    }

    /**
     * bwrap's {@code --die-with-parent} is Linux's parent-death signal, which follows the thread that
     * started the process, not the JVM: a job started from a pooled thread that later retires must not
     * die with that thread.
     */
    @Test
    void jobStartedFromAThreadThatThenEndsKeepsRunningUntilItFinishes() throws Exception {
        AtomicReference<Path> nativeThread = new AtomicReference<>();
        AtomicReference<ExecResult> started = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                nativeThread.set(Path.of("/proc").resolve(Files.readSymbolicLink(Path.of("/proc/thread-self"))));
                started.set(run("echo ready; while [ ! -e go ]; do sleep 0.05; done; echo finished", 0L));
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "short-lived-caller");
        caller.start();
        caller.join(Await.LIMIT.toMillis());
        assertThat(caller.isAlive()).as("the caller thread ended").isFalse();
        assertThat(failed.get()).as("exec_run from the short-lived thread").isNull();
        assertThat(started.get().status()).isEqualTo(JobStatus.RUNNING);
        // Once the kernel has removed the thread, a parent-death signal bound to it has been sent.
        Await.until("the caller's native thread is gone", () -> !Files.exists(nativeThread.get()));

        Files.writeString(root.resolve("go"), "");
        ExecResult r = engine.await("s", started.get().id(), 30_000);

        assertThat(r.status()).as("status of the job (exit code %s, stdout %s, stderr %s)", r.exitCode(), r.stdout(), r.stderr())
                .isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).isEqualTo("ready\nfinished\n");
    }
}
