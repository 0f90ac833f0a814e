package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@link Glob} matches as the regular expression a glob stands for, in time proportional to the path's
 * length times the glob's: the property compares it with that expression on random globs and paths made
 * of the characters that matter, and a glob that made the expression backtrack for minutes matches at once.
 */
class GlobTest {
    /**
     * The glob's regular expression, written out here the way the glob language is defined (the oracle;
     * it backtracks, which is why the library does not match with it).
     */
    static String regex(String g) {
        StringBuilder re = new StringBuilder();
        int braces = 0;
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < g.length() && g.charAt(i + 1) == '*') {
                        boolean slashAfter = i + 2 < g.length() && g.charAt(i + 2) == '/';
                        boolean atSegmentStart = i == 0 || g.charAt(i - 1) == '/';
                        if (slashAfter && atSegmentStart) {
                            re.append("(?:.*/)?");
                            i += 2;
                        } else {
                            re.append(".*");
                            i += 1;
                        }
                    } else {
                        re.append("[^/]*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    // a ']' first in the class (after a negating '!' or '^') belongs to it
                    int first = i + 1 < g.length() && (g.charAt(i + 1) == '!' || g.charAt(i + 1) == '^') ? i + 2 : i + 1;
                    int end = g.indexOf(']', first + 1);
                    if (end < 0) {
                        return null;
                    }
                    String body = g.substring(i + 1, end);
                    re.append('[');
                    if (body.startsWith("!") || body.startsWith("^")) {
                        re.append('^');
                        body = body.substring(1);
                    }
                    for (char b : body.toCharArray()) {
                        if (b == '[' || b == '&' || b == '\\') {
                            re.append('\\');
                        }
                        re.append(b);
                    }
                    re.append(']');
                    i = end;
                }
                case '{' -> {
                    braces++;
                    re.append("(?:");
                }
                case '}' -> {
                    if (braces == 0) {
                        re.append("\\}");
                    } else {
                        braces--;
                        re.append(')');
                    }
                }
                case ',' -> re.append(braces > 0 ? "|" : ",");
                default -> {
                    if ("\\.^$+()|".indexOf(c) >= 0) {
                        re.append('\\');
                    }
                    re.append(c);
                }
            }
        }
        return braces != 0 ? null : re.toString();
    }

    @Provide
    Arbitrary<String> globs() {
        return Arbitraries.strings().withChars("ab/*?{},[]!-.").ofMinLength(1).ofMaxLength(12);
    }

    @Provide
    Arbitrary<String> paths() {
        return Arbitraries.strings().withChars("ab/.-!{},").ofMaxLength(10);
    }

    @Property(tries = 20000)
    void matchesAsItsRegularExpression(@ForAll("globs") String glob, @ForAll("paths") String path) {
        String stripped = glob.startsWith("./") ? glob.substring(2) : glob;   // as Glob.compile does
        String re = regex(stripped);
        Pattern pattern = null;
        try {
            pattern = re == null ? null : Pattern.compile(re);
        } catch (PatternSyntaxException e) {
            // the expression is malformed: the glob must be refused too (checked below)
        }
        Glob g;
        try {
            g = Glob.compile(glob);
        } catch (ToolException e) {
            assertThat(pattern).as("refused %s, whose expression is %s", glob, re).isNull();
            return;
        }
        if (g == null) {
            return;     // everything matches
        }
        assertThat(pattern).as("accepted %s, whose expression is malformed", glob).isNotNull();
        String name = path.substring(path.lastIndexOf('/') + 1);
        boolean expected = pattern.matcher(stripped.indexOf('/') < 0 ? name : path).matches();
        assertThat(g.matches(path, name)).as("%s on %s (expression %s)", glob, path, re).isEqualTo(expected);
    }

    @Test
    void aGlobThatMakesARegularExpressionBacktrackMatchesAtOnce() throws ToolException {
        // as a regular expression, [^/]*a[^/]*a...b on a long name of a's takes exponential time
        Glob g = Glob.compile("*a".repeat(25) + "b");
        String name = "a".repeat(200);
        // no wall-clock limit here: answering at all is the point (the expression ran for minutes)
        assertThat(g.matches(name, name)).isFalse();
        assertThat(g.matches(name + "b", name + "b")).isTrue();
    }

    @Test
    void aQuestionMarkIsOneCharacterAlsoOutsideTheBasicPlane() throws ToolException {
        assertThat(Glob.compile("?.txt").matches("\uD83D\uDE00.txt", "\uD83D\uDE00.txt")).isTrue();
        assertThat(Glob.compile("[\uD83D\uDE00x].txt").matches("\uD83D\uDE00.txt", "\uD83D\uDE00.txt")).isTrue();
    }

    @Test
    void aReversedRangeIsRefusedSayingHowToWriteIt() {
        assertThatThrownBy(() -> Glob.compile("[z-a]")).isInstanceOf(ToolException.class)
                .hasMessageContaining("'z-a'").hasMessageContaining("write it as 'a-z'");
    }
}
