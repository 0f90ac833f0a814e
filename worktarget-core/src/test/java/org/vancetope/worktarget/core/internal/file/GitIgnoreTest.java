package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GitIgnoreTest {

    private static boolean file(String line, String path) {
        GitIgnore.Rule r = GitIgnore.rule(line);
        String name = path.substring(path.lastIndexOf('/') + 1);
        return r != null && r.matches(path, name, false);
    }

    private static boolean dir(String line, String path) {
        GitIgnore.Rule r = GitIgnore.rule(line);
        String name = path.substring(path.lastIndexOf('/') + 1);
        return r != null && r.matches(path, name, true);
    }

    @Test
    void blankLinesAndCommentsAreNoRules() {
        assertThat(GitIgnore.rule("")).isNull();
        assertThat(GitIgnore.rule("   ")).isNull();
        assertThat(GitIgnore.rule("# x")).isNull();
        assertThat(GitIgnore.rule("/")).isNull();
        assertThat(GitIgnore.rule("!")).isNull();
    }

    @Test
    void aPatternWithoutSlashMatchesTheNameAtAnyDepth() {
        assertThat(file("*.log", "a/b/c.log")).isTrue();
        assertThat(file("c.log", "a/b/c.log")).isTrue();
        assertThat(file("*.log", "a/b/c.txt")).isFalse();
    }

    @Test
    void aSlashInTheMiddleAnchors() {
        assertThat(file("a/*.txt", "a/x.txt")).isTrue();
        assertThat(file("a/*.txt", "b/a/x.txt")).isFalse();
        assertThat(file("a/*.txt", "a/b/x.txt")).isFalse();
    }

    @Test
    void starAndQuestionMarkDoNotMatchSlash() {
        assertThat(file("/a*b", "a/b")).isFalse();
        assertThat(file("/a?b", "a/b")).isFalse();
        assertThat(file("/a?b", "axb")).isTrue();
    }

    @Test
    void doubleStarOnlyCountsAsDirectoriesAtSegmentBoundaries() {
        assertThat(file("**/x", "x")).isTrue();
        assertThat(file("**/x", "a/b/x")).isTrue();
        assertThat(file("a/**/x", "a/x")).isTrue();
        assertThat(file("a/**/x", "a/b/c/x")).isTrue();
        assertThat(file("a/**", "a/b/c")).isTrue();
        assertThat(file("a/**", "a")).isFalse();
        assertThat(file("/a**b", "a/x/b")).isFalse();
        assertThat(file("/a**b", "axxb")).isTrue();
    }

    @Test
    void trailingSlashMatchesDirectoriesOnly() {
        assertThat(dir("build/", "x/build")).isTrue();
        assertThat(file("build/", "x/build")).isFalse();
    }

    @Test
    void negationIsMarked() {
        assertThat(GitIgnore.rule("!keep.log").negated()).isTrue();
        assertThat(GitIgnore.rule("\\!keep.log").negated()).isFalse();
        assertThat(file("\\!keep.log", "!keep.log")).isTrue();
    }

    @Test
    void characterClassesIncludingNegationAndALeadingBracket() {
        assertThat(file("[ab].txt", "a.txt")).isTrue();
        assertThat(file("[!ab].txt", "a.txt")).isFalse();
        assertThat(file("[!ab].txt", "c.txt")).isTrue();
        assertThat(file("[]x].txt", "].txt")).isTrue();
        assertThat(file("[a-c].txt", "b.txt")).isTrue();
    }

    @Test
    void anUnclosedBracketIsALiteral() {
        assertThat(file("[ab", "[ab")).isTrue();
    }

    @Test
    void regexMetacharactersAreLiterals() {
        assertThat(file("a+b(c).{x}$", "a+b(c).{x}$")).isTrue();
        assertThat(file("a.b", "axb")).isFalse();
    }

    @Test
    void trailingSpacesAreDroppedUnlessEscaped() {
        assertThat(file("a.txt  ", "a.txt")).isTrue();
        assertThat(file("a.txt\\ ", "a.txt ")).isTrue();
        assertThat(file("a.txt\\ ", "a.txt")).isFalse();
    }

    @Test
    void aCarriageReturnAtTheEndIsDropped() {
        assertThat(GitIgnore.parse("a.txt\r\nb.txt\r\n")).hasSize(2);
        assertThat(file("a.txt\r", "a.txt")).isTrue();
    }

    @Test
    void aUtf8ByteOrderMarkBeforeTheFirstRuleIsSkippedAsGitSkipsIt() {
        List<GitIgnore.Rule> rules = GitIgnore.parse("\uFEFF*.log\nbuild/\n\uFEFFb.txt\n");
        assertThat(rules).hasSize(3);
        assertThat(rules.get(0).matches("x.log", "x.log", false)).isTrue();
        assertThat(rules.get(2).matches("b.txt", "b.txt", false)).as("only at the start of the file").isFalse();
    }

    @Test
    void patternsThatClimbOutOfTheDirectoryMatchNothingInside() {
        assertThat(file("../x", "x")).isFalse();
        assertThat(file("/../**", "a/b")).isFalse();
    }
}
