package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host application that is a named module: it is compiled against the library jars on the module path with
 * {@code -Xlint:all -Werror}, and run there without {@code --add-modules} or {@code --add-opens}. It requires
 * the three backend modules only (the core, the SPI, Netty and Jackson come through them), provides a backend
 * that the core's {@code uses} finds, and talks to a real server and daemon on loopback.
 */
class ModulePathConsumerTest {
    private static final String[] SOURCES = {"module-info.java", "consumer/Main.java", "consumer/Greeting.java"};
    /** The jars a consumer's module path needs: ours, and what they require. */
    private static final List<String> MODULE_PATH_ENTRIES = List.of("/worktarget-spi/", "/worktarget-core/",
            "/backend-local/", "/backend-workspace/", "/transfer-protocol/", "/backend-daemon/");
    private static final List<String> THIRD_PARTY = List.of("jackson-databind-", "jackson-core-",
            "jackson-annotations-", "netty-", "slf4j-api-", "slf4j-simple-");

    @TempDir
    Path dir;

    private static String modulePath() {
        return java.util.Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> MODULE_PATH_ENTRIES.stream().anyMatch(e.replace('\\', '/')::contains)
                        || THIRD_PARTY.stream().anyMatch(Path.of(e).getFileName().toString()::startsWith))
                .collect(Collectors.joining(File.pathSeparator));
    }

    private Path sources() throws IOException {
        Path src = dir.resolve("src");
        for (String s : SOURCES) {
            try (InputStream in = ModulePathConsumerTest.class.getResourceAsStream("/module-consumer/" + s)) {
                assertThat(in).as("test resource module-consumer/" + s).isNotNull();
                Path target = src.resolve(s);
                Files.createDirectories(target.getParent());
                Files.copy(in, target);
            }
        }
        return src;
    }

    private Path compile(String modulePath) throws IOException {
        Path src = sources();
        Path out = Files.createDirectories(dir.resolve("out"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<File> units = new ArrayList<>();
            for (String s : SOURCES) {
                units.add(src.resolve(s).toFile());
            }
            List<String> options = List.of("--release", "17", "-Xlint:all", "-Werror", "--module-path", modulePath,
                    "-d", out.toString());
            boolean ok = javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(units))
                    .call();
            String messages = diagnostics.getDiagnostics().stream().map(Diagnostic::toString)
                    .collect(Collectors.joining("\n"));
            assertThat(ok).as("the consumer compiles without a warning:\n" + messages).isTrue();
            assertThat(diagnostics.getDiagnostics()).as(messages).isEmpty();
        }
        return out;
    }

    @Test
    void aNamedModuleCompilesWithLintAsErrorsAndRunsOnTheModulePathWithoutExtraFlags() throws Exception {
        String modulePath = modulePath();
        Path out = compile(modulePath);
        Path log = dir.resolve("run.log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--module-path", out + File.pathSeparator + modulePath,
                "-m", "consumer/consumer.Main", Files.createDirectories(dir.resolve("work")).toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS); // a bound against a hang, not a speed check
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the consumer ended:\n" + output).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).as(output).contains(
                "provided: hello from a provided module",
                "work: on WORK",
                "daemon: on the daemon",
                "daemon file on disk: on the daemon");
    }
}
