package org.vancetope.worktarget.testfixtures.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiCheckTest {
    private static final List<String> DUMP = List.of(
            "public final class a.A",
            "  public void one()",
            "public final class a.B",
            "  public void two()");

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("api").resolve("m.api");
    }

    private void commit(List<String> lines) throws Exception {
        Files.createDirectories(file().getParent());
        Files.write(file(), lines);
    }

    private static List<String> withFirstLine(List<String> dump) {
        return Stream.concat(Stream.of(ApiCheck.firstLine("m")), dump.stream())
                .toList();
    }

    @Test
    void anEqualDumpPassesAndIsNotRewritten() throws Exception {
        commit(withFirstLine(DUMP));
        assertThat(ApiCheck.verify("m", file(), DUMP, false)).isFalse();
        assertThat(ApiCheck.verify("m", file(), DUMP, true)).isFalse();
    }

    @Test
    void aDifferenceFailsWithTheFirstDifferingLinesAndTheUpdateCommand() throws Exception {
        commit(withFirstLine(DUMP));
        List<String> changed = List.of(DUMP.get(0), DUMP.get(1), DUMP.get(2), "  public void two(int)");
        assertThatThrownBy(() -> ApiCheck.verify("m", file(), changed, false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("differs from " + file())
                .hasMessageContaining("First difference at line 5, in public final class a.B")
                .hasMessageContaining("-   public void two()\n")
                .hasMessageContaining("+   public void two(int)\n")
                .hasMessageContaining("mvn -B verify -pl m -am -Dworktarget.updateApi=true");
    }

    @Test
    void aShorterDumpShowsTheEndOfFile() throws Exception {
        commit(withFirstLine(DUMP));
        assertThatThrownBy(() -> ApiCheck.verify("m", file(), DUMP.subList(0, 2), false))
                .hasMessageContaining("- public final class a.B\n")
                .hasMessageContaining("+ (end of file)\n");
    }

    @Test
    void aMissingDumpFailsWithTheCommandThatCreatesIt() {
        assertThatThrownBy(() -> ApiCheck.verify("m", file(), DUMP, false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("No API dump of m at " + file())
                .hasMessageContaining("-Dworktarget.updateApi=true");
    }

    @Test
    void theUpdateFlagWritesTheDumpWithItsFirstLine() throws Exception {
        commit(List.of("# stale", "public final class a.Gone"));
        assertThat(ApiCheck.verify("m", file(), DUMP, true)).isTrue();
        assertThat(Files.readAllLines(file())).isEqualTo(withFirstLine(DUMP));
        assertThat(ApiCheck.verify("m", file(), DUMP, false)).isFalse();
    }

    @Test
    void theFirstLineSaysHowToRewriteTheFile() {
        assertThat(ApiCheck.firstLine("m")).startsWith("# Public API of m")
                .contains("-Dworktarget.updateApi=true");
    }
}
