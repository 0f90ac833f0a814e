package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.internal.path.Reserved;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.ChildMain;

/**
 * The jobs of a JVM that was killed are killed by the next JVM's first engine: their cookie names a JVM
 * (PID namespace, and its owner name: host, pid, start time) that no longer runs. Jobs of live JVMs, of other PID namespaces and with
 * cookies of another form are left alone. Real processes, and a real child JVM killed with SIGKILL.
 */
@EnabledOnOs(OS.LINUX)
class OrphanedJobTest {
    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void proc() {
        Assumptions.assumeTrue(!ProcessTree.COOKIE_OWNER.isEmpty(), "no /proc: job cookies name no JVM");
    }

    @AfterEach
    void tearDown() {
        started.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        started.forEach(Process::destroyForcibly);
    }

    /** A process that carries a job cookie, as a job's would (in a session of its own, like a job). */
    private Process carrying(String cookie) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/usr/bin/setsid", "sleep", "1000").directory(dir.toFile());
        pb.environment().put(ProcessTree.COOKIE_VAR, cookie);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        started.add(p);
        Await.until("the process runs with its cookie", () -> environ(p.pid()).contains(ProcessTree.COOKIE_VAR + "="
                + cookie));
        return p;
    }

    /** A process's environment as it started, or "" while it is not readable (setsid has not run sleep yet). */
    private static String environ(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/environ"), StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** The start of a cookie for a process of this host that ran and is gone: a JVM that ended. */
    private static String endedOwner(String namespace) throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return namespace + "." + Reserved.ownerOfProcess(p.pid()) + ".";
    }

    private static String namespace() {
        return ProcessTree.COOKIE_OWNER.substring(0, ProcessTree.COOKIE_OWNER.indexOf('.'));
    }

    @Test
    void aProcessWhoseCookieNamesAJvmThatEndedIsKilled() throws Exception {
        Process orphan = carrying(endedOwner(namespace()) + "0123456789abcdef0123456789abcdef");

        List<Long> killed = ProcessTree.killJobsOfEndedJvms();     // (or another JVM's first engine, meanwhile)

        assertThat(orphan.waitFor(30, TimeUnit.SECONDS)).as(() -> "the orphan is killed (pid " + orphan.pid()
                + "; this sweep killed " + killed + "; the carriers of cookies now: "
                + ProcTable.cookieCarriers(ProcessHandle.current().pid()) + ")").isTrue();
    }

    @Test
    void processesOfALiveJvmOfAnotherNamespaceOrWithAnotherCookieAreLeftAlone() throws Exception {
        Process ours = carrying(ProcessTree.COOKIE_OWNER + "0123456789abcdef0123456789abcdef");
        Process otherNamespace = carrying(endedOwner("1") + "0123456789abcdef0123456789abcdef");
        Process oldForm = carrying("0123456789abcdef0123456789abcdef");
        Process garbage = carrying(namespace() + ".x.y.z");

        List<Long> killed = ProcessTree.killJobsOfEndedJvms();

        assertThat(killed).doesNotContain(ours.pid(), otherNamespace.pid(), oldForm.pid(), garbage.pid());
        assertThat(List.of(ours, otherNamespace, oldForm, garbage)).allMatch(Process::isAlive);
    }

    @Test
    void anEngineJobOfThisJvmCarriesItsOwnerAndIsLeftAlone() throws Exception {
        try (ExecEngine engine = ExecEngine.builder().build()) {
            engine.run(new ExecRequest("s", "echo $$ > job.pid; exec sleep 1000", root(dir), Map.of("PATH",
                    "/usr/bin:/bin"), 0L, null, null));
            long job = Long.parseLong(Await.line(dir.resolve("job.pid")));
            assertThat(environ(job)).contains(ProcessTree.COOKIE_VAR + "=" + ProcessTree.COOKIE_OWNER);

            assertThat(ProcessTree.killJobsOfEndedJvms()).doesNotContain(job);
            assertThat(ProcessHandle.of(job).map(ProcessHandle::isAlive)).contains(true);
        }
    }

    @Test
    void theJobOfAJvmKilledWithSigkillIsKilledByTheNextSweep() throws Exception {
        Process child = ChildMain.start(JobHolder.class, dir.toString());
        started.add(child);
        long job = Long.parseLong(Await.line(dir.resolve("job.pid")));

        child.destroyForcibly();     // SIGKILL: the child's engine never ends its job
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(job).map(ProcessHandle::isAlive)).as("the job outlives its JVM").contains(true);

        ProcessTree.killJobsOfEndedJvms();     // (or the first engine of another JVM that starts meanwhile)
        Await.processGone(job);
    }
}
