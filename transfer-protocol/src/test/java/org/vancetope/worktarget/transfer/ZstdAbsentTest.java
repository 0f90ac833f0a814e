package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.internal.transfer.ChunkCompression;

/**
 * Without zstd-jni everything works and {@code transfer.zstd} is simply not offered: a real JVM whose
 * class path is this test's without zstd-jni, and the probe's seam for a class that is not there.
 */
class ZstdAbsentTest {
    @TempDir
    Path dir;

    @Test
    void theProbeReportsAMissingClassAsUnavailable() {
        ChunkCompression.Availability a = ChunkCompression.probe("com.github.luben.zstd.NotThere");
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).startsWith("zstd-jni is not on the class path");
    }

    @Test
    void withZstdJniOnTheClassPathTheRealProbeFindsItWorking() {
        assertThat(ChunkCompression.probe("com.github.luben.zstd.Zstd").available()).isTrue();
    }

    @Test
    void aJvmWithoutZstdJniOffersEverythingElseAndTransfersWork() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("zstd-jni")).collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath).isNotEqualTo(System.getProperty("java.class.path"));
        Path log = dir.resolve("child.log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath,
                WithoutZstdMain.class.getName()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);   // a bound against a hang, not a speed check
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the child ended:\n%s", output).isTrue();
        assertThat(p.exitValue()).as("exit code; output:\n%s", output).isZero();
        Map<String, String> out = new HashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        java.util.Set<org.vancetope.worktarget.core.transfer.TransferCapability> allButZstd =
                java.util.EnumSet.allOf(org.vancetope.worktarget.core.transfer.TransferCapability.class);
        allButZstd.remove(org.vancetope.worktarget.core.transfer.TransferCapability.ZSTD);
        assertThat(out).as(output).containsEntry("available", "false")
                .containsEntry("offered", allButZstd.toString())
                .containsEntry("defaults", allButZstd.toString())
                .containsEntry("transfer", "true,true")
                .containsEntry("clean", "true")
                .containsEntry("refusedClean", "true");
        assertThat(out.get("reason")).startsWith("zstd-jni is not on the class path");
        assertThat(out.get("zstdInit")).startsWith("false,transfer_init announces zstd compression, which needs the "
                + "capability transfer.zstd");
    }
}
