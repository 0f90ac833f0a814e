package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.nio.file.Path;
import java.util.Map;

/**
 * A child JVM for {@link OrphanedJobTest}: starts a job ({@code sleep 1000}, its pid in {@code job.pid} of the
 * directory given as its argument), says {@code ready} and waits to be killed.
 */
public final class JobHolder {
    private JobHolder() {
    }

    /**
     * Runs until killed.
     *
     * @param args the job's directory
     * @throws Exception when the job cannot start
     */
    public static void main(String[] args) throws Exception {
        ExecEngine engine = ExecEngine.builder().build();
        engine.run(new ExecRequest("s", "echo $$ > job.pid; exec sleep 1000", root(Path.of(args[0])),
                Map.of("PATH", "/usr/bin:/bin"), 0L, null, null));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
