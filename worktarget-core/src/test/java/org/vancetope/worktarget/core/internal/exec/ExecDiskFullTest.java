package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * A job whose output fills the disk, on a real full file system: a 64 KiB tmpfs mounted as the work
 * directory. Needs the right to mount (root); skipped elsewhere, where {@link StreamCaptureTest} covers
 * the same with an injected failing file.
 */
class ExecDiskFullTest {
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
    /** 200,000 'x', a newline, then the true last line. */
    static final String BIG_OUTPUT = "head -c 200000 /dev/zero | tr '\\0' x; echo; echo THE-END";

    @TempDir
    Path base;
    Path small;
    boolean mounted;
    ExecEngine engine;

    @BeforeEach
    void mountTinyFileSystem() throws Exception {
        small = Files.createDirectories(base.resolve("small"));
        mounted = exec("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small.toString()) == 0;
        Assumptions.assumeTrue(mounted, "cannot mount a tmpfs here (not root?)");
        engine = ExecEngine.builder().settings(ExecSettings.builder().inlineOutputCharCap(200).build()).build();
    }

    @AfterEach
    void unmount() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (mounted && exec("umount", small.toString()) != 0) {
            exec("umount", "-l", small.toString());
        }
    }

    private static int exec(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    @Test
    void outputThatFillsTheDiskIsReportedAsDiskFullNotAsTheOutputCap() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", BIG_OUTPUT, root(small), ENV, 30_000L, null, null));

        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.truncated()).isTrue();
        assertThat(r.hint()).contains("disk_full", "the disk is full", "stdout file is incomplete")
                .doesNotContain("outputFileMaxBytes");
        assertThat(r.stdout()).endsWith("THE-END\n");
        assertThat(Files.size(small.resolve(r.stdoutPath()))).isLessThan(200_000);
    }

    @Test
    void tailOfAStreamCutByAFullDiskIsTheTrueEnd() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", BIG_OUTPUT, root(small), ENV, 30_000L, null, null));

        assertThat(engine.tail("s", r.id(), 1, false).lines()).containsExactly("THE-END");
    }
}
