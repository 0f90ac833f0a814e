package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * An ignore pattern matches as the regular expression it stands for, without backtracking: the property
 * compares {@link GitIgnore#rule} with that expression on random patterns and paths, and a pattern that made
 * the expression run for minutes on one name (an ignore file in a tree nobody here wrote) matches at once.
 */
class GitIgnoreMatchingTest {
    /** The Java regex of a pattern as git defines it (the oracle; it backtracks). */
    static String regex(String p) {
        StringBuilder re = new StringBuilder();
        int n = p.length();
        for (int i = 0; i < n; i++) {
            char c = p.charAt(i);
            switch (c) {
                case '*' -> {
                    int j = i;
                    while (j < n && p.charAt(j) == '*') {
                        j++;
                    }
                    boolean segmentStart = i == 0 || p.charAt(i - 1) == '/';
                    if (j - i == 2 && segmentStart && j == n) {
                        re.append(".*");                    // trailing /** (or a lone **): everything inside
                    } else if (j - i == 2 && segmentStart && p.charAt(j) == '/') {
                        re.append("(?:.*/)?");              // **/ : zero or more directories
                        j++;
                    } else {
                        re.append("[^/]*");
                    }
                    i = j - 1;
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int close = classEnd(p, i);
                    if (close < 0) {
                        re.append("\\[");
                    } else {
                        re.append('[');
                        int k = i + 1;
                        if (p.charAt(k) == '!' || p.charAt(k) == '^') {
                            re.append('^');
                            k++;
                        }
                        for (; k < close; k++) {
                            char b = p.charAt(k);
                            if (b == '\\' && k + 1 < close) {
                                k++;
                                b = p.charAt(k);
                                // an escaped character is itself (git); a regex would read \b, \d, \a otherwise
                                re.append(Character.isLetterOrDigit(b) ? "" : "\\").append(b);
                            } else if (b == '[' || b == ']' || b == '&' || b == '\\' || b == '^') {
                                re.append('\\').append(b);
                            } else {
                                re.append(b);
                            }
                        }
                        re.append(']');
                        i = close;
                    }
                }
                case '\\' -> {
                    if (i + 1 < n) {
                        i++;
                        re.append(Pattern.quote(String.valueOf(p.charAt(i))));
                    }
                }
                default -> {
                    if ("\\.^$+()|{}".indexOf(c) >= 0) {
                        re.append('\\');
                    }
                    re.append(c);
                }
            }
        }
        return re.toString();
    }

    /** The index of the ']' closing a class opened at {@code open}, or -1 (as git reads a class). */
    static int classEnd(String p, int open) {
        int k = open + 1;
        if (k < p.length() && (p.charAt(k) == '!' || p.charAt(k) == '^')) {
            k++;
        }
        if (k < p.length() && p.charAt(k) == ']') {
            k++;
        }
        for (; k < p.length(); k++) {
            char c = p.charAt(k);
            if (c == '\\') {
                k++;
            } else if (c == ']') {
                return k;
            }
        }
        return -1;
    }

    @Provide
    Arbitrary<String> patterns() {
        return Arbitraries.strings().withChars("ab/*?[]!^-\\.").ofMinLength(1).ofMaxLength(10);
    }

    @Provide
    Arbitrary<String> paths() {
        return Arbitraries.strings().withChars("ab/.-!^[]\\").ofMaxLength(9);
    }

    @Property(tries = 20000)
    void aPatternMatchesAsItsRegularExpression(@ForAll("patterns") String pattern, @ForAll("paths") String path) {
        // the line as rule() takes it apart: no '!', no trailing '/', no leading '/'
        if (pattern.startsWith("!") || pattern.startsWith("/") || pattern.endsWith("/") || pattern.startsWith("#")
                || pattern.endsWith(" ")) {
            return;
        }
        Pattern re;
        try {
            re = Pattern.compile(regex(pattern));
        } catch (PatternSyntaxException e) {
            re = null;
        }
        GitIgnore.Rule rule = GitIgnore.rule(pattern);
        if (re == null) {
            assertThat(rule).as("%s, whose expression is malformed", pattern).isNull();
            return;
        }
        assertThat(rule).as("%s (expression %s)", pattern, regex(pattern)).isNotNull();
        String name = path.substring(path.lastIndexOf('/') + 1);
        boolean expected = re.matcher(rule.anchored() ? path : name).matches();
        assertThat(rule.matches(path, name, true)).as("%s on %s (expression %s)", pattern, path, regex(pattern))
                .isEqualTo(expected);
    }

    @Test
    void aPatternThatMakesARegularExpressionBacktrackMatchesAtOnce() {
        GitIgnore.Rule rule = GitIgnore.rule("*a".repeat(25) + "b");
        String name = "a".repeat(200);
        assertThat(rule.matches(name, name, false)).isFalse();
        assertThat(rule.matches(name + "b", name + "b", false)).isTrue();
    }

    @Test
    void aLineWithAReversedRangeIsSkippedAndTheOthersOfItsFileStay() {
        assertThat(GitIgnore.parse("[z-a]\n*.log\n")).hasSize(1)
                .allSatisfy(r -> assertThat(r.matches("x.log", "x.log", false)).isTrue());
    }
}
