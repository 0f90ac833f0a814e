package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's "Basic use" is {@link BasicUse}, and it runs. */
class BasicUseTest {
    private static final Path SOURCE = Path.of("src/main/java/org/vancetope/worktarget/examples/BasicUse.java");

    /** The lines between the markers, with the common indentation removed. */
    private static List<String> exampleLines() throws IOException {
        List<String> all = Files.readAllLines(SOURCE);
        int begin = indexOf(all, "// README:begin");
        int end = indexOf(all, "// README:end");
        List<String> body = all.subList(begin + 1, end);
        int indent = body.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        return body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList();
    }

    private static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                return i;
            }
        }
        throw new AssertionError("no line '" + marker + "' in " + SOURCE);
    }

    /** The first java block of the README's "Basic use" section. */
    private static List<String> readmeLines() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        String section = readme.substring(readme.indexOf("## Basic use"));
        int start = section.indexOf("```java\n") + "```java\n".length();
        String block = section.substring(start, section.indexOf("```", start));
        return Arrays.asList(block.split("\n", -1)).subList(0, (int) block.lines().count());
    }

    @Test
    void theReadmeShowsBasicUseAsItIs() throws IOException {
        assertThat(readmeLines()).containsExactlyElementsOf(exampleLines());
    }

    @Test
    void basicUseRunsOnWorkAndOnADaemon(@TempDir Path base) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            BasicUse.main(new String[] {base.toString()});
        } finally {
            System.setOut(original);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("2 hello.txt").contains("not_found: ").contains("on the daemon");
        assertThat(base.resolve("build-box/built.txt")).hasContent("on the daemon\n");
    }
}
