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
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.vancetope.worktarget.backend.daemon.internal.NettyVersionCheck;

/**
 * A consumer project that imports worktarget-bom beside Spring Boot 3.5's BOM, resolved by a forked Maven:
 * imported first, our BOM gives the consumer the Netty and Jackson the build tests with; imported after
 * Spring Boot's, the consumer gets Netty 4.1, and the start's Netty check refuses those versions with a
 * message naming 4.2. Forking Maven over the modules' POMs and Spring Boot's 44 imported BOMs takes about
 * a minute on a loaded machine and needs them in the local repository (the first run downloads them), so
 * it runs only with {@code -Dworktarget.bomConsumer=true}, as .ci/run does.
 */
@EnabledIfSystemProperty(named = "worktarget.bomConsumer", matches = "true")
class BomConsumerTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String SPRING_BOOT_VERSION = "3.5.7";
    private static final Pattern TREE_LINE = Pattern.compile("(io\\.netty|com\\.fasterxml\\.jackson\\.core):([\\w.-]+):jar:([^:]+):compile");

    private static String bom(String groupId, String artifactId, String version) {
        return "<dependency><groupId>" + groupId + "</groupId><artifactId>" + artifactId + "</artifactId><version>"
                + version + "</version><type>pom</type><scope>import</scope></dependency>";
    }

    private static String ours() throws IOException {
        String pom = Files.readString(ROOT.resolve("worktarget-bom/pom.xml"));
        Matcher m = Pattern.compile("<artifactId>worktarget-bom</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertThat(m.find()).isTrue();
        return bom("org.vancetope.worktarget", "worktarget-bom", m.group(1));
    }

    private static String springBoot() {
        return bom("org.springframework.boot", "spring-boot-dependencies", SPRING_BOOT_VERSION);
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(BomConsumerTest.class.getResourceAsStream("/bom-consumer/" + name), name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Writes the consumer reactor under examples/target, resolves it, and returns artifact to version. */
    private static Map<String, String> resolve(String name, String first, String second) throws Exception {
        Path dir = ROOT.resolve("examples/target/bom-consumer-" + name);
        Files.createDirectories(dir.resolve("consumer"));
        String root = dir.relativize(ROOT).toString().replace(File.separatorChar, '/');
        Files.writeString(dir.resolve("pom.xml"), resource("pom.xml").replace("@ROOT@", root));
        Files.writeString(dir.resolve("consumer/pom.xml"), resource("consumer/pom.xml")
                .replace("@FIRST@", first).replace("@SECOND@", second));
        Path tree = dir.resolve("consumer/target/tree.txt");
        Files.deleteIfExists(tree);

        List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-f", dir.resolve("pom.xml").toString(),
                "dependency:tree", "-Dmdep.skip=true"));
        if ("offline=true".equals(System.getProperty("worktarget.mavenOffline"))) {
            cmd.add(1, "-o"); // as offline as the build that runs this test
        }
        Path log = dir.resolve("mvn.log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        boolean ended = p.waitFor(10, TimeUnit.MINUTES); // a bound against a hang, not a speed check
        if (!ended) {
            p.destroyForcibly().waitFor();
        }
        assertThat(ended && p.exitValue() == 0).as("%s; see %s:%n%s", cmd, log, tail(log)).isTrue();

        Map<String, String> out = new TreeMap<>();
        for (String line : Files.readAllLines(tree)) {
            Matcher m = TREE_LINE.matcher(line);
            if (m.find()) {
                out.put(m.group(2), m.group(3));
            }
        }
        return out;
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static String parentProperty(String name) throws IOException {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private static Map<String, String> netty(Map<String, String> resolved) {
        Map<String, String> out = new TreeMap<>(resolved);
        out.keySet().removeIf(a -> !a.startsWith("netty-"));
        return out;
    }

    @Test
    void ourBomImportedFirstGivesTheNettyAndJacksonTheBuildTestsWith() throws Exception {
        Map<String, String> resolved = resolve("ours-first", ours(), springBoot());

        assertThat(netty(resolved)).containsKeys("netty-common", "netty-transport", "netty-handler", "netty-codec-http");
        assertThat(netty(resolved).values()).containsOnly(parentProperty("netty.version"));
        assertThat(resolved).containsEntry("jackson-databind", parentProperty("jackson.version"));
        assertThat(NettyVersionCheck.problem("WorkTargetServer.start()", netty(resolved))).isEmpty();
    }

    @Test
    void springBootsBomImportedFirstGivesNettyFourOneWhichTheStartRefusesNamingFourTwo() throws Exception {
        Map<String, String> resolved = resolve("spring-first", springBoot(), ours());

        assertThat(resolved.get("netty-common")).startsWith("4.1.");
        String message = NettyVersionCheck.problem("WorkTargetServer.start()", netty(resolved)).orElseThrow();
        assertThat(message).startsWith("WorkTargetServer.start() needs Netty 4.2.x")
                .contains("netty-common " + resolved.get("netty-common"))
                .contains("import org.vancetope.worktarget:worktarget-bom before it");
    }
}
