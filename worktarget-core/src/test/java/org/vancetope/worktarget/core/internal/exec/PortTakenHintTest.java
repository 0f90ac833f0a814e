package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A command that failed because its port is taken gets a hint that names the caller's jobs that still run
 * (one of which most likely holds the port: a dev server started twice), or says what else may hold it. The
 * servers' own words are given as the job's stderr (a real server would need a runtime the test machine may
 * lack); the jobs that still run are real.
 */
@EnabledOnOs(OS.LINUX)
class PortTakenHintTest extends JobHintTestBase {
    private static final String NODE = "Error: listen EADDRINUSE: address already in use :::3000";

    private ExecResult failingWith(String stderr) throws ToolException {
        return run("printf '%s\\n' '" + stderr.replace("'", "'\\''") + "' >&2; exit 1");
    }

    @Test
    void aDevServerStartedAgainIsToldWhichOfTheCallersJobsStillRuns() throws Exception {
        ExecResult first = engine().run(new ExecRequest("s", "sleep 300", TestRoots.root(dir), ENV, 0L, null, null));

        ExecResult again = failingWith(NODE);

        assertThat(again.hint()).isEqualTo("The port the command would listen on is taken (address already in use). "
                + "Your job '" + first.id() + "' (sleep 300) still runs and most likely holds it: exec_kill it before "
                + "starting the command again, or use another port (e.g. PORT=3001, --port 8001). Otherwise it is held "
                + "by a job that started a server in the background ('&') and ended (exec_kill of that job's id ends "
                + "what it left running), or another program on this machine.");
        engine().kill("s", first.id());
    }

    @Test
    void withoutAJobThatStillRunsTheHintSaysWhatElseMayHoldThePort() throws Exception {
        assertThat(failingWith("OSError: [Errno 98] Address already in use").hint()).startsWith("The port the command "
                + "would listen on is taken (address already in use), by a job that started a server in the "
                + "background").contains("Use another port");
    }

    @Test
    void whatServersPrintIsRecognisedAndLongCommandsAreCut() {
        for (String stderr : new String[] {NODE, "OSError: [Errno 98] Address already in use",
            "listen tcp :8080: bind: address already in use", "java.net.BindException: Address already in use",
            "Bind for 0.0.0.0:5432 failed: port is already allocated", "Port 5173 is in use, trying another one...",
            "Error: Port 3000 is already in use"}) {
            assertThat(ExecResults.portTakenHint(stderr, List.of())).as(stderr).startsWith("The port the command");
        }
        assertThat(ExecResults.portTakenHint(NODE, List.of("'a' (npm run dev)", "'b' (python3 -m http.server)")))
                .contains("Your jobs 'a' (npm run dev), 'b' (python3 -m http.server) still run, and one of them most "
                        + "likely holds it");
        assertThat(ExecResults.portTakenHint("fatal: not a git repository", List.of())).isNull();
        assertThat(ExecResults.portTakenHint(null, List.of())).isNull();
    }
}
