package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Everything the documentation points to is in the repository: the relative links of the README and of
 * {@code docs/} resolve to files (and their {@code #anchors} to headings), every {@code docs/….md} that a
 * source file or page names exists, and no file cites a document that lives outside the repository.
 */
class DocLinksTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    /** A page named in prose or a comment; a quoted {@code "docs/a.md"} is a test's fixture path, not a reference. */
    private static final Pattern DOC_MENTION = Pattern.compile("(?<![\\w/.\"-])docs/[\\w-]+\\.md");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$", Pattern.MULTILINE);
    /** Documents that are not in the repository; written as patterns so that this file does not match itself. */
    private static final List<Pattern> OUTSIDE = List.of(
            Pattern.compile("PROTOCOL\\.md"),
            Pattern.compile("PERFORMANCE\\.md"),
            Pattern.compile("(?i)\\bspec\\s+00\\d"),
            Pattern.compile("\\.\\./shared\\b"));

    private static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    /** The text files of the repository: everything outside build output and version control that is UTF-8. */
    private static List<Path> textFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> all = Files.walk(ROOT)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path rel = ROOT.relativize(p);
                boolean skipped = false;
                for (Path part : rel) {
                    String n = part.toString();
                    if (n.equals("target") || n.equals(".git") || n.equals("node_modules") || n.equals(".idea")) {
                        skipped = true;
                        break;
                    }
                }
                if (!skipped && Files.isRegularFile(p) && Files.size(p) < 1 << 20 && text(p) != null) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    private static String text(Path p) throws IOException {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(p)))
                    .toString();
        } catch (CharacterCodingException binary) {
            return null;
        }
    }

    /** The anchor GitHub gives a heading: lower case, punctuation dropped, blanks as hyphens. */
    static String slug(String heading) {
        String s = heading.strip().toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                b.appendCodePoint(c);
            } else if (c == ' ') {
                b.append('-');
            }
            i += Character.charCount(c);
        }
        return b.toString();
    }

    private static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new HashSet<>();
        Matcher m = HEADING.matcher(withoutCodeBlocks(Files.readString(page)));
        while (m.find()) {
            out.add(slug(m.group(1)));
        }
        return out;
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?ms)^```.*?^```", "");
    }

    @Test
    void theRelativeLinksOfTheReadmeAndTheDocsResolve() throws IOException {
        Set<String> broken = new TreeSet<>();
        int links = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(withoutCodeBlocks(Files.readString(page)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    continue;   // http:, https:, mailto: — not a file of the repository
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + " → " + target;
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertThat(links).as("links checked").isPositive();
        assertThat(broken).as("links to files or headings that do not exist").isEmpty();
    }

    @Test
    void everyDocThatAFileNamesExists() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (Path p : textFiles()) {
            Matcher m = DOC_MENTION.matcher(text(p));
            while (m.find()) {
                if (!Files.isRegularFile(ROOT.resolve(m.group()))) {
                    missing.add(ROOT.relativize(p) + " names " + m.group());
                }
            }
        }
        assertThat(missing).as("docs named but not in the repository").isEmpty();
    }

    @Test
    void noFileCitesADocumentOutsideTheRepository() throws IOException {
        Set<String> found = new TreeSet<>();
        List<Path> files = textFiles();
        assertThat(files).as("the repository's text files").anyMatch(p -> p.toString().endsWith(".java"));
        for (Path p : files) {
            String[] lines = text(p).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                for (Pattern outside : OUTSIDE) {
                    if (outside.matcher(lines[i]).find()) {
                        found.add(ROOT.relativize(p) + ":" + (i + 1) + ": " + lines[i].strip());
                    }
                }
            }
        }
        assertThat(found).as("citations of documents that are not in the repository; cite docs/ or the source")
                .isEmpty();
    }

    @Test
    void slugsAreGitHubs() {
        assertThat(slug("`WorkTargetDispatcher.Builder` (core)")).isEqualTo("worktargetdispatcherbuilder-core");
        assertThat(slug("Command line: `java -jar worktarget.jar`")).isEqualTo("command-line-java--jar-worktargetjar");
        assertThat(slug("The admin API of `serve`")).isEqualTo("the-admin-api-of-serve");
    }
}
