package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@code file_count}: measures a file or a tree in lines, chars and bytes, or counts the lines matching
 * a pattern, streaming each file in pieces on the call's {@link SearchLanes} under its
 * {@link CallDeadline}.
 */
final class FileCounting {
    private final FileToolSettings settings;
    private final SearchLanes lanes;

    FileCounting(FileToolSettings settings, SearchLanes lanes) {
        this.settings = settings;
        this.lanes = lanes;
    }

    /**
     * {@code file_count}: lines, chars and bytes of a file or tree, or the lines matching a pattern. Bounded
     * by {@link FileToolSettings#searchTimeout()} like {@code file_grep} (matching checks it).
     *
     * @param gate the gate
     * @param params path, pathGlob, maxDepth, pattern, includeGenerated
     * @return path, files, lines, chars, bytes (or matchingLines, filesWithMatches), skipped counts
     * @throws ToolException on failure; {@code timeout}, {@code cancelled}
     */
    CountResult count(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        String regex = Params.optString(params, "pattern", null);
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Searcher searcher = regex == null ? null : new Searcher(Searcher.compile(regex, false), false);
        Path base = gate.resolveForRead(userPath);
        BasicFileAttributes baseAttrs = FileErrors.attrs(base, userPath);
        int skippedGenerated = 0;
        String hint = null;
        String unreadableDirs = null;
        boolean single = !baseAttrs.isDirectory();
        AtomicLong lines = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger withMatches = new AtomicInteger();
        AtomicInteger binary = new AtomicInteger();
        AtomicInteger nonUtf8 = new AtomicInteger();
        AtomicInteger unreadable = new AtomicInteger();
        AtomicReference<IOException> firstUnreadable = new AtomicReference<>();
        CallDeadline deadline = CallDeadline.start("file_count", settings.searchTimeout().toMillis());
        String prefix = TreeWalker.prefix(gate, single ? base.getParent() : base);
        TreeWalker.Sink sink = e -> {
            try (SeekableByteChannel ch = e.open()) {
                Tally c = countFile(ch, searcher, single, deadline, prefix + e.rel());
                switch (c.status) {
                    case OK -> {
                        counted.incrementAndGet();
                        lines.addAndGet(c.lines);
                        chars.addAndGet(c.chars);
                        bytes.addAndGet(c.bytes);
                        if (c.lines > 0 && searcher != null) {
                            withMatches.incrementAndGet();
                        }
                    }
                    case BINARY -> binary.incrementAndGet();
                    case NON_UTF8 -> nonUtf8.incrementAndGet();
                }
            } catch (IOException ex) {
                unreadable.incrementAndGet();
                firstUnreadable.compareAndSet(null, ex);
            }
        };
        try (SafeDirectory dir = gate.open(single ? base.getParent() : base)) {
            if (single) {
                String name = base.getFileName().toString();
                BasicFileAttributes a = dir.attributes(name);
                if (!a.isRegularFile()) {
                    throw ConfinedRoot.escape(userPath);
                }
                sink.accept(new TreeWalker.Entry(name, a.size(), 0, dir, base.getFileName()));
            } else {
                TreeWalker.Skipped c = TreeWalker.walk(lanes, deadline, new TreeWalker.Spec(dir, maxDepth, glob,
                        includeGenerated ? null : settings.generatedDirNames(), null), sink);
                skippedGenerated = c.generatedDirs();
                unreadableDirs = c.unreadableHint();
                if (c.deepDirs() > 0) {
                    boolean one = c.deepDirs() == 1;
                    hint = c.deepDirsText() + (one ? " was" : " were") + " not entered, so the files in "
                            + (one ? "it" : "them") + " are not counted: " + c.deeperAdvice(settings.maxDepthLimit())
                            + ".";
                }
            }
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "read");
        } catch (CallDeadline.Stop e) {
            throw deadline.failure(searcher == null ? "Narrow path, pathGlob or maxDepth."
                    : "The pattern may backtrack catastrophically (nested quantifiers such as (a+)+): simplify it, or "
                    + "narrow path, pathGlob or maxDepth.");
        }
        if (single && unreadable.get() > 0) {
            throw FileErrors.io(firstUnreadable.get(), userPath, "read");     // as file_read says it
        }
        if (unreadable.get() > 0) {
            boolean one = unreadable.get() == 1;
            hint = FileErrors.moreHint(hint, (one ? "1 file" : unreadable.get() + " files") + " could not be read (no "
                    + "permission, or removed meanwhile), so " + (one ? "it is" : "they are") + " not counted. See "
                    + "why with exec_run, for example find . -type f ! -readable -exec ls -l {} +.");
        }
        hint = FileErrors.moreHint(hint, unreadableDirs);
        return new CountResult(gate.relative(base), counted.get(), regex, lines.get(),
                chars.get(), bytes.get(), withMatches.get(), nonUtf8.get(), binary.get(), skippedGenerated, hint);
    }

    private enum CountStatus { OK, BINARY, NON_UTF8 }

    private record Tally(CountStatus status, long lines, long chars, long bytes) {
    }

    private Tally countFile(SeekableByteChannel ch, Searcher searcher, boolean single, CallDeadline deadline,
                                  String rel) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(TextScan.CHUNK);
        byte[] a = bb.array();
        int n = fill(ch, bb);
        if (!single && (TextScan.classify(a, 0, Math.min(n, TextScan.SNIFF)) & TextScan.BINARY) != 0) {
            return new Tally(CountStatus.BINARY, 0, 0, 0);
        }
        if (searcher != null) {
            ch.position(0);
            Reader reader = Channels.newReader(ch, TextScan.strictUtf8(), TextScan.CHUNK);
            char[] cbuf = new char[TextScan.CHUNK];
            StringBuilder line = new StringBuilder();
            long matching = 0;
            boolean nul = false;
            int k;
            try {
                while ((k = reader.read(cbuf)) >= 0) {
                    deadline.check(rel);
                    matching += feed(cbuf, k, line, searcher, deadline, rel);
                    nul = nul || !single && hasNul(cbuf, k);
                }
            } catch (CharacterCodingException e) {
                return new Tally(CountStatus.NON_UTF8, 0, 0, 0);
            } catch (StackOverflowError so) {
                throw deadline.fail(Params.invalid("The pattern recursed too deeply while matching a long line of "
                        + ConfinedRoot.quote(rel) + " (Java regex recursion, e.g. (a|b)*). Use a character class "
                        + "instead (e.g. [ab]*)."));
            }
            if (line.length() > 0 && searcher.matchesLine(line, deadline, rel)) {
                matching++;
            }
            if (nul && matching > 0) {
                // a NUL after the first 8 KiB: file_grep skips such a file as binary when it holds the
                // pattern, so its lines are not counted as matches here either
                return new Tally(CountStatus.BINARY, 0, 0, 0);
            }
            return new Tally(CountStatus.OK, matching, 0, ch.size());
        }
        long lines = 0;
        long chars = 0;
        long bytes = 0;
        byte last = '\n';
        while (n > 0) {
            deadline.check(rel);
            bytes += n;
            lines += TextScan.newlines(a, 0, n);
            chars += TextScan.utf16Chars(a, 0, n);
            last = a[n - 1];
            bb.clear();
            n = fill(ch, bb);
        }
        if (bytes > 0 && last != '\n') {
            lines++;
        }
        return new Tally(CountStatus.OK, lines, chars, bytes);
    }

    private static int fill(SeekableByteChannel ch, ByteBuffer bb) throws IOException {
        while (bb.hasRemaining() && ch.read(bb) > 0) {
            // fill
        }
        return bb.position();
    }

    private static boolean hasNul(char[] cbuf, int len) {
        for (int i = 0; i < len; i++) {
            if (cbuf[i] == 0) {
                return true;
            }
        }
        return false;
    }

    private static long feed(char[] cbuf, int len, StringBuilder line, Searcher searcher, CallDeadline deadline,
                             String rel) {
        long matching = 0;
        for (int i = 0; i < len; i++) {
            char c = cbuf[i];
            if (c == '\n') {
                int l = line.length();
                if (l > 0 && line.charAt(l - 1) == '\r') {
                    line.setLength(l - 1);
                }
                if (searcher.matchesLine(line, deadline, rel)) {
                    matching++;
                }
                line.setLength(0);
            } else {
                line.append(c);
            }
        }
        return matching;
    }
}
