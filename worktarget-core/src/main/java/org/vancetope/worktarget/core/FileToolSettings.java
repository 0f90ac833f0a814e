package org.vancetope.worktarget.core;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The limits of the file tools ({@code file_read} … {@code file_tree}), shared by every backend that
 * runs them. Immutable; start from {@link #defaults()} or {@link #builder()}, change with
 * {@link #toBuilder()}. Each setter of the {@link Builder} refuses a bad value at once;
 * {@link Builder#build()} checks only what several settings must satisfy together (a default never
 * above its maximum).
 *
 * <pre>{@code
 * FileToolSettings settings = FileToolSettings.builder()
 *         .grepMaxFileBytes(4L << 20)
 *         .findDefaultLimit(100)
 *         .searchTimeout(Duration.ofSeconds(10))
 *         .build();
 * }</pre>
 *
 * <p>The settings bound what one call returns, what it looks at, how much memory and time it may take;
 * they do not limit how often tools are called. No single call may take the process (or a daemon's
 * connection) down: results are capped in bytes ({@link #resultMaxBytes()}) as well as in counts,
 * whole-file operations in memory ({@link #wholeFileMaxBytes()}), walks and searches in time
 * ({@link #searchTimeout()}), and a {@code file_read} page costs about the page
 * ({@link #readTotalsMaxBytes()}). It does not read system properties or environment variables: the
 * host maps its own configuration onto the builder.
 */
public final class FileToolSettings {

    /** The default {@link #resultMaxBytes()}: 1 MiB. */
    public static final int DEFAULT_RESULT_MAX_BYTES = 1 << 20;
    /** The smallest {@link #resultMaxBytes()}: 1,024 bytes. */
    public static final int MIN_RESULT_MAX_BYTES = 1024;
    /** The default {@link #searchTimeout()}: 30 s. */
    public static final Duration DEFAULT_SEARCH_TIMEOUT = Duration.ofSeconds(30);
    /** The longest {@link #searchTimeout()}: one day. */
    public static final Duration MAX_SEARCH_TIMEOUT = Duration.ofDays(1);
    /** The default {@link #readTotalsMaxBytes()}: 16 MiB. */
    public static final long DEFAULT_READ_TOTALS_MAX_BYTES = 16L << 20;
    /** The default {@link #readMaxFiles()}: 20. */
    public static final int DEFAULT_READ_MAX_FILES = 20;
    /** The largest {@link #readMaxFiles()}: 1,000. */
    public static final int MAX_READ_MAX_FILES = 1000;
    /** The default {@link #binaryReadMaxBytes()}: 512 KiB (about 683 KiB of base64). */
    public static final int DEFAULT_BINARY_READ_MAX_BYTES = 512 * 1024;
    /** The largest {@link #wholeFileMaxBytes()} and {@link #grepMaxFileBytes()}: what one Java array can hold. */
    public static final long WHOLE_FILE_LIMIT = Integer.MAX_VALUE - 16;

    /**
     * The generated directories pruned by default: version control, dependency caches, build outputs
     * and virtual environments.
     */
    public static final List<String> DEFAULT_GENERATED_DIRS = List.of(
            ".git", ".hg", ".svn", ".bzr",
            "node_modules", "bower_components", ".yarn", ".pnpm-store",
            "target", "build", "dist", ".gradle", ".next", ".nuxt", ".turbo", ".parcel-cache",
            ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
            ".terraform", ".cache");

    private final int readDefaultChars;
    private final int readMaxChars;
    private final int headTailMaxLines;
    private final int listMaxEntries;
    private final int defaultMaxDepth;
    private final int maxDepthLimit;
    private final int findDefaultLimit;
    private final int findMaxLimit;
    private final int grepDefaultLimit;
    private final int grepMaxLimit;
    private final long grepMaxFileBytes;
    private final int grepLineClipChars;
    private final int grepMaxContext;
    private final int editDiffMaxLines;
    private final int maxPathLength;
    private final int maxComponentLength;
    private final SortedSet<String> generatedDirNames;
    private final int parallelism;
    private final int resultMaxBytes;
    private final long wholeFileMaxBytes;
    private final Duration searchTimeout;
    private final long readTotalsMaxBytes;
    private final int readMaxFiles;
    private final int binaryReadMaxBytes;

    private FileToolSettings(Builder b) {
        this.readDefaultChars = b.readDefaultChars;
        this.readMaxChars = b.readMaxChars;
        this.headTailMaxLines = b.headTailMaxLines;
        this.listMaxEntries = b.listMaxEntries;
        this.defaultMaxDepth = b.defaultMaxDepth;
        this.maxDepthLimit = b.maxDepthLimit;
        this.findDefaultLimit = b.findDefaultLimit;
        this.findMaxLimit = b.findMaxLimit;
        this.grepDefaultLimit = b.grepDefaultLimit;
        this.grepMaxLimit = b.grepMaxLimit;
        this.grepMaxFileBytes = b.grepMaxFileBytes;
        this.grepLineClipChars = b.grepLineClipChars;
        this.grepMaxContext = b.grepMaxContext;
        this.editDiffMaxLines = b.editDiffMaxLines;
        this.maxPathLength = b.maxPathLength;
        this.maxComponentLength = b.maxComponentLength;
        this.generatedDirNames = Collections.unmodifiableSortedSet(new TreeSet<>(b.generatedDirNames));
        this.parallelism = b.parallelism;
        this.resultMaxBytes = b.resultMaxBytes;
        this.wholeFileMaxBytes = b.wholeFileMaxBytes;
        this.searchTimeout = b.searchTimeout;
        this.readTotalsMaxBytes = b.readTotalsMaxBytes;
        this.readMaxFiles = b.readMaxFiles;
        this.binaryReadMaxBytes = b.binaryReadMaxBytes;
    }

    /**
     * The defaults.
     *
     * @return the default settings
     */
    public static FileToolSettings defaults() {
        return builder().build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these settings; {@code toBuilder().build()} equals this.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.readDefaultChars = readDefaultChars;
        b.readMaxChars = readMaxChars;
        b.headTailMaxLines = headTailMaxLines;
        b.listMaxEntries = listMaxEntries;
        b.defaultMaxDepth = defaultMaxDepth;
        b.maxDepthLimit = maxDepthLimit;
        b.findDefaultLimit = findDefaultLimit;
        b.findMaxLimit = findMaxLimit;
        b.grepDefaultLimit = grepDefaultLimit;
        b.grepMaxLimit = grepMaxLimit;
        b.grepMaxFileBytes = grepMaxFileBytes;
        b.grepLineClipChars = grepLineClipChars;
        b.grepMaxContext = grepMaxContext;
        b.editDiffMaxLines = editDiffMaxLines;
        b.maxPathLength = maxPathLength;
        b.maxComponentLength = maxComponentLength;
        b.generatedDirNames = new TreeSet<>(generatedDirNames);
        b.parallelism = parallelism;
        b.resultMaxBytes = resultMaxBytes;
        b.wholeFileMaxBytes = wholeFileMaxBytes;
        b.searchTimeout = searchTimeout;
        b.readTotalsMaxBytes = readTotalsMaxBytes;
        b.readMaxFiles = readMaxFiles;
        b.binaryReadMaxBytes = binaryReadMaxBytes;
        return b;
    }

    /**
     * The default {@link #wholeFileMaxBytes()} of this JVM: 1/8 of {@link Runtime#maxMemory()}, at most 1 GiB
     * (and at least 1 MiB). {@code file_edit} holds the file's bytes once plus the replacement, so with
     * {@code -Xmx256m} the limit is 32 MiB and a larger file is refused instead of exhausting the heap.
     *
     * @return bytes
     */
    public static long heapDerivedWholeFileMaxBytes() {
        long max = Runtime.getRuntime().maxMemory();
        long eighth = max == Long.MAX_VALUE ? 1L << 30 : max / 8;
        return Math.max(1L << 20, Math.min(1L << 30, eighth));
    }

    /**
     * Characters {@code file_read} returns when the call gives no {@code maxChars} (default 8,000; at most
     * {@link #readMaxChars()}).
     *
     * @return characters
     */
    public int readDefaultChars() {
        return readDefaultChars;
    }

    /**
     * The largest {@code maxChars} {@code file_read} accepts (default 100,000).
     *
     * @return characters
     */
    public int readMaxChars() {
        return readMaxChars;
    }

    /**
     * The largest {@code head} and {@code tail} of {@code file_head_tail} (default 5,000).
     *
     * @return lines
     */
    public int headTailMaxLines() {
        return headTailMaxLines;
    }

    /**
     * Entries {@code file_list} returns before it marks the listing truncated (default 1,000).
     *
     * @return entries
     */
    public int listMaxEntries() {
        return listMaxEntries;
    }

    /**
     * The {@code maxDepth} of {@code file_find}, {@code file_grep} and {@code file_count} when the call gives
     * none (default 12; 0 = only the starting directory; at most {@link #maxDepthLimit()}).
     *
     * @return levels
     */
    public int defaultMaxDepth() {
        return defaultMaxDepth;
    }

    /**
     * The largest {@code maxDepth} a call may ask for (default 64).
     *
     * @return levels
     */
    public int maxDepthLimit() {
        return maxDepthLimit;
    }

    /**
     * The {@code limit} of {@code file_find} when the call gives none (default 200; at most
     * {@link #findMaxLimit()}).
     *
     * @return results
     */
    public int findDefaultLimit() {
        return findDefaultLimit;
    }

    /**
     * The largest {@code limit} of {@code file_find} (default 2,000).
     *
     * @return results
     */
    public int findMaxLimit() {
        return findMaxLimit;
    }

    /**
     * The {@code limit} of {@code file_grep} when the call gives none (default 200; at most
     * {@link #grepMaxLimit()}).
     *
     * @return matches
     */
    public int grepDefaultLimit() {
        return grepDefaultLimit;
    }

    /**
     * The largest {@code limit} of {@code file_grep} (default 1,000).
     *
     * @return matches
     */
    public int grepMaxLimit() {
        return grepMaxLimit;
    }

    /**
     * Files larger than this are skipped by {@code file_grep} and counted as skipped (default 2 MiB).
     *
     * @return bytes
     */
    public long grepMaxFileBytes() {
        return grepMaxFileBytes;
    }

    /**
     * Lines of {@code file_grep} results longer than this are clipped with a marker (default 600).
     *
     * @return characters
     */
    public int grepLineClipChars() {
        return grepLineClipChars;
    }

    /**
     * The largest {@code contextBefore} and {@code contextAfter} of {@code file_grep} (default 20; 0 = no
     * context lines at all).
     *
     * @return lines
     */
    public int grepMaxContext() {
        return grepMaxContext;
    }

    /**
     * Lines of the diff shown in a {@code file_edit} result (default 40).
     *
     * @return lines
     */
    public int editDiffMaxLines() {
        return editDiffMaxLines;
    }

    /**
     * The longest accepted path, in bytes of UTF-8 (default 4,096); a longer one is refused before any
     * lookup. File systems count bytes: a letter such as {@code 'é'} takes two, a CJK character three.
     *
     * @return bytes
     */
    public int maxPathLength() {
        return maxPathLength;
    }

    /**
     * The longest accepted path component, in bytes of UTF-8 (default 255, what ext4, xfs, btrfs, tmpfs
     * and APFS store); a longer one is refused before any lookup.
     *
     * @return bytes
     */
    public int maxComponentLength() {
        return maxComponentLength;
    }

    /**
     * The directory names pruned from walks unless a call sets {@code includeGenerated} (default
     * {@link #DEFAULT_GENERATED_DIRS}; empty = prune nothing).
     *
     * @return the names, sorted and unmodifiable
     */
    public Set<String> generatedDirNames() {
        return generatedDirNames;
    }

    /**
     * Threads of one walk or search (default: the available processors); every call gets threads of its own,
     * so concurrent calls never wait for each other's workers.
     *
     * @return threads
     */
    public int parallelism() {
        return parallelism;
    }

    /**
     * The most bytes of compact UTF-8 JSON the variable part of one result may take: the {@code matches} of
     * {@code file_grep} (context lines included), the {@code files} of {@code file_find}, the {@code entries}
     * of {@code file_list}, the {@code content} of {@code file_read}, {@code head} + {@code tail} of
     * {@code file_head_tail}. Beyond it the result is cut, {@code truncated} is true and a {@code hint} says
     * how to get the rest (default {@value #DEFAULT_RESULT_MAX_BYTES}, 1 MiB, well under the 2 MiB WebSocket
     * frame a daemon's result must fit in; at least {@value #MIN_RESULT_MAX_BYTES}).
     *
     * @return bytes
     */
    public int resultMaxBytes() {
        return resultMaxBytes;
    }

    /**
     * The largest file {@code file_edit} loads and the largest content (UTF-8 bytes) {@code file_write} or an
     * edit writes; larger ones fail {@code size_limit} before anything is read or written (default
     * {@link #heapDerivedWholeFileMaxBytes()}: 1/8 of the JVM's maximum heap, at most 1 GiB).
     *
     * @return bytes
     */
    public long wholeFileMaxBytes() {
        return wholeFileMaxBytes;
    }

    /**
     * The deadline of one {@code file_grep}, {@code file_find} or {@code file_count} call, enforced inside regex
     * matching and counted in whole milliseconds: past it the call fails {@code timeout}, and a cancelled call
     * (its thread interrupted) fails {@code cancelled}, in both cases with every thread of the call stopped
     * (default {@link #DEFAULT_SEARCH_TIMEOUT}, 30 s: below the 60 s a DAEMON call waits, so the caller sees
     * why). It has no special value: there is always a deadline, from 1 ms to {@link #MAX_SEARCH_TIMEOUT}.
     *
     * @return the deadline
     */
    public Duration searchTimeout() {
        return searchTimeout;
    }

    /**
     * How far {@code file_read} reads on past the page to count {@code totalLines} and {@code totalChars}; a
     * file whose end lies further gives {@code null} totals and {@code totalsKnown: false}, so a page costs
     * about the page, not the file (default {@value #DEFAULT_READ_TOTALS_MAX_BYTES} bytes, 16 MiB; 0 = count
     * only when the page itself reaches the end of the file).
     *
     * @return bytes
     */
    public long readTotalsMaxBytes() {
        return readTotalsMaxBytes;
    }

    /**
     * The most files one {@code file_read} call reads with {@code paths} (default
     * {@value #DEFAULT_READ_MAX_FILES}, at most {@value #MAX_READ_MAX_FILES}); more fail {@code invalid_params}.
     * The files share the call's {@link #resultMaxBytes()}.
     *
     * @return files
     */
    public int readMaxFiles() {
        return readMaxFiles;
    }

    /**
     * The largest binary file {@code file_read} returns as base64 when the call passes {@code allowBinary}
     * (default {@value #DEFAULT_BINARY_READ_MAX_BYTES} bytes, 512 KiB); a bigger one fails {@code size_limit}.
     * The base64 text (4 bytes for every 3) must also fit in the result budget ({@link #resultMaxBytes()},
     * or a file's share of it when several are read), so the smaller of the two bounds applies.
     *
     * @return bytes
     */
    public int binaryReadMaxBytes() {
        return binaryReadMaxBytes;
    }

    /**
     * Whether {@code o} is a {@code FileToolSettings} with the same value in every setting.
     *
     * @param o the other object
     * @return true when every setting is equal
     */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FileToolSettings other)) {
            return false;
        }
        return readDefaultChars == other.readDefaultChars
                && readMaxChars == other.readMaxChars
                && headTailMaxLines == other.headTailMaxLines
                && listMaxEntries == other.listMaxEntries
                && defaultMaxDepth == other.defaultMaxDepth
                && maxDepthLimit == other.maxDepthLimit
                && findDefaultLimit == other.findDefaultLimit
                && findMaxLimit == other.findMaxLimit
                && grepDefaultLimit == other.grepDefaultLimit
                && grepMaxLimit == other.grepMaxLimit
                && grepMaxFileBytes == other.grepMaxFileBytes
                && grepLineClipChars == other.grepLineClipChars
                && grepMaxContext == other.grepMaxContext
                && editDiffMaxLines == other.editDiffMaxLines
                && maxPathLength == other.maxPathLength
                && maxComponentLength == other.maxComponentLength
                && parallelism == other.parallelism
                && resultMaxBytes == other.resultMaxBytes
                && wholeFileMaxBytes == other.wholeFileMaxBytes
                && readTotalsMaxBytes == other.readTotalsMaxBytes
                && readMaxFiles == other.readMaxFiles
                && binaryReadMaxBytes == other.binaryReadMaxBytes
                && generatedDirNames.equals(other.generatedDirNames)
                && searchTimeout.equals(other.searchTimeout);
    }

    /**
     * A hash of every setting, consistent with {@link #equals(Object)}.
     *
     * @return the hash
     */
    @Override
    public int hashCode() {
        return Objects.hash(readDefaultChars, readMaxChars, headTailMaxLines, listMaxEntries, defaultMaxDepth, maxDepthLimit,
                findDefaultLimit, findMaxLimit, grepDefaultLimit, grepMaxLimit, grepMaxFileBytes, grepLineClipChars,
                grepMaxContext, editDiffMaxLines, maxPathLength, maxComponentLength, generatedDirNames, parallelism,
                resultMaxBytes, wholeFileMaxBytes, searchTimeout, readTotalsMaxBytes, readMaxFiles, binaryReadMaxBytes);
    }

    /**
     * Every setting and its value, as a record would list them, e.g.
     * {@code FileToolSettings[readDefaultChars=8000, readMaxChars=100000, …, searchTimeout=PT30S, …]}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return "FileToolSettings[readDefaultChars=" + readDefaultChars
                + ", readMaxChars=" + readMaxChars
                + ", headTailMaxLines=" + headTailMaxLines
                + ", listMaxEntries=" + listMaxEntries
                + ", defaultMaxDepth=" + defaultMaxDepth
                + ", maxDepthLimit=" + maxDepthLimit
                + ", findDefaultLimit=" + findDefaultLimit
                + ", findMaxLimit=" + findMaxLimit
                + ", grepDefaultLimit=" + grepDefaultLimit
                + ", grepMaxLimit=" + grepMaxLimit
                + ", grepMaxFileBytes=" + grepMaxFileBytes
                + ", grepLineClipChars=" + grepLineClipChars
                + ", grepMaxContext=" + grepMaxContext
                + ", editDiffMaxLines=" + editDiffMaxLines
                + ", maxPathLength=" + maxPathLength
                + ", maxComponentLength=" + maxComponentLength
                + ", generatedDirNames=" + generatedDirNames
                + ", parallelism=" + parallelism
                + ", resultMaxBytes=" + resultMaxBytes
                + ", wholeFileMaxBytes=" + wholeFileMaxBytes
                + ", searchTimeout=" + searchTimeout
                + ", readTotalsMaxBytes=" + readTotalsMaxBytes
                + ", readMaxFiles=" + readMaxFiles
                + ", binaryReadMaxBytes=" + binaryReadMaxBytes
                + "]";
    }

    private static long atLeast(String name, long v, long min, String unit) {
        if (v < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + " " + unit + ", got " + v);
        }
        return v;
    }

    private static long between(String name, long v, long min, long max, String unit) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + " " + unit + ", got "
                    + v);
        }
        return v;
    }

    private static void notAbove(String defaultName, long defaultValue, String maxName, long maxValue) {
        if (defaultValue > maxValue) {
            throw new IllegalArgumentException(defaultName + " (" + defaultValue + ") must not exceed " + maxName + " ("
                    + maxValue + "); lower " + defaultName + " or raise " + maxName);
        }
    }

    /**
     * Builds {@link FileToolSettings}; every setting starts at its default. A setter refuses a bad value at
     * once with an {@link IllegalArgumentException} that names the setting, the value and what is valid.
     */
    public static final class Builder {
        private int readDefaultChars = 8_000;
        private int readMaxChars = 100_000;
        private int headTailMaxLines = 5_000;
        private int listMaxEntries = 1_000;
        private int defaultMaxDepth = 12;
        private int maxDepthLimit = 64;
        private int findDefaultLimit = 200;
        private int findMaxLimit = 2_000;
        private int grepDefaultLimit = 200;
        private int grepMaxLimit = 1_000;
        private long grepMaxFileBytes = 2L * 1024 * 1024;
        private int grepLineClipChars = 600;
        private int grepMaxContext = 20;
        private int editDiffMaxLines = 40;
        private int maxPathLength = 4096;
        private int maxComponentLength = 255;
        private Set<String> generatedDirNames = new TreeSet<>(DEFAULT_GENERATED_DIRS);
        private int parallelism = Runtime.getRuntime().availableProcessors();
        private int resultMaxBytes = DEFAULT_RESULT_MAX_BYTES;
        private long wholeFileMaxBytes = heapDerivedWholeFileMaxBytes();
        private Duration searchTimeout = DEFAULT_SEARCH_TIMEOUT;
        private long readTotalsMaxBytes = DEFAULT_READ_TOTALS_MAX_BYTES;
        private int readMaxFiles = DEFAULT_READ_MAX_FILES;
        private int binaryReadMaxBytes = DEFAULT_BINARY_READ_MAX_BYTES;

        private Builder() {
        }

        /**
         * Sets {@link FileToolSettings#readDefaultChars()}.
         *
         * @param v characters, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder readDefaultChars(int v) {
            this.readDefaultChars = (int) atLeast("readDefaultChars", v, 1, "characters");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#readMaxChars()}.
         *
         * @param v characters, at least 1 and at least {@code readDefaultChars}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder readMaxChars(int v) {
            this.readMaxChars = (int) atLeast("readMaxChars", v, 1, "characters");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#headTailMaxLines()}.
         *
         * @param v lines, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder headTailMaxLines(int v) {
            this.headTailMaxLines = (int) atLeast("headTailMaxLines", v, 1, "lines");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#listMaxEntries()}.
         *
         * @param v entries, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder listMaxEntries(int v) {
            this.listMaxEntries = (int) atLeast("listMaxEntries", v, 1, "entries");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#defaultMaxDepth()}.
         *
         * @param v levels, 0 or more and at most {@code maxDepthLimit}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder defaultMaxDepth(int v) {
            this.defaultMaxDepth = (int) atLeast("defaultMaxDepth", v, 0, "levels");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#maxDepthLimit()}.
         *
         * @param v levels, 0 or more and at least {@code defaultMaxDepth}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder maxDepthLimit(int v) {
            this.maxDepthLimit = (int) atLeast("maxDepthLimit", v, 0, "levels");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#findDefaultLimit()}.
         *
         * @param v results, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder findDefaultLimit(int v) {
            this.findDefaultLimit = (int) atLeast("findDefaultLimit", v, 1, "results");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#findMaxLimit()}.
         *
         * @param v results, at least 1 and at least {@code findDefaultLimit}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder findMaxLimit(int v) {
            this.findMaxLimit = (int) atLeast("findMaxLimit", v, 1, "results");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#grepDefaultLimit()}.
         *
         * @param v matches, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder grepDefaultLimit(int v) {
            this.grepDefaultLimit = (int) atLeast("grepDefaultLimit", v, 1, "matches");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#grepMaxLimit()}.
         *
         * @param v matches, at least 1 and at least {@code grepDefaultLimit}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder grepMaxLimit(int v) {
            this.grepMaxLimit = (int) atLeast("grepMaxLimit", v, 1, "matches");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#grepMaxFileBytes()}.
         *
         * @param v bytes, 1 to {@link FileToolSettings#WHOLE_FILE_LIMIT}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder grepMaxFileBytes(long v) {
            this.grepMaxFileBytes = between("grepMaxFileBytes", v, 1, WHOLE_FILE_LIMIT, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#grepLineClipChars()}.
         *
         * @param v characters, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder grepLineClipChars(int v) {
            this.grepLineClipChars = (int) atLeast("grepLineClipChars", v, 1, "characters");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#grepMaxContext()}.
         *
         * @param v lines, 0 or more
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder grepMaxContext(int v) {
            this.grepMaxContext = (int) atLeast("grepMaxContext", v, 0, "lines");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#editDiffMaxLines()}.
         *
         * @param v lines, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder editDiffMaxLines(int v) {
            this.editDiffMaxLines = (int) atLeast("editDiffMaxLines", v, 1, "lines");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#maxPathLength()}.
         *
         * @param v bytes of UTF-8, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder maxPathLength(int v) {
            this.maxPathLength = (int) atLeast("maxPathLength", v, 1, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#maxComponentLength()}.
         *
         * @param v bytes of UTF-8, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder maxComponentLength(int v) {
            this.maxComponentLength = (int) atLeast("maxComponentLength", v, 1, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#generatedDirNames()}.
         *
         * @param names the names, none null (empty = prune nothing)
         * @return this
         * @throws NullPointerException when {@code names} is null
         * @throws IllegalArgumentException when a name is null
         */
        public Builder generatedDirNames(Set<String> names) {
            Objects.requireNonNull(names, "names");
            TreeSet<String> copy = new TreeSet<>();
            for (String name : names) {
                if (name == null) {
                    throw new IllegalArgumentException("generatedDirNames must not contain null, got " + names);
                }
                copy.add(name);
            }
            this.generatedDirNames = copy;
            return this;
        }

        /**
         * Sets {@link FileToolSettings#parallelism()}.
         *
         * @param v threads, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder parallelism(int v) {
            this.parallelism = (int) atLeast("parallelism", v, 1, "threads");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#resultMaxBytes()}.
         *
         * @param v bytes, at least {@value FileToolSettings#MIN_RESULT_MAX_BYTES}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder resultMaxBytes(int v) {
            this.resultMaxBytes = (int) atLeast("resultMaxBytes", v, MIN_RESULT_MAX_BYTES, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#wholeFileMaxBytes()}.
         *
         * @param v bytes, 1 to {@link FileToolSettings#WHOLE_FILE_LIMIT}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder wholeFileMaxBytes(long v) {
            this.wholeFileMaxBytes = between("wholeFileMaxBytes", v, 1, WHOLE_FILE_LIMIT, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#searchTimeout()}.
         *
         * @param timeout 1 ms to {@link FileToolSettings#MAX_SEARCH_TIMEOUT}; a fraction of a millisecond is dropped
         * @return this
         * @throws NullPointerException when {@code timeout} is null
         * @throws IllegalArgumentException when it is shorter than 1 ms or longer than one day
         */
        public Builder searchTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(MAX_SEARCH_TIMEOUT) > 0) {
                throw new IllegalArgumentException("searchTimeout must be between 1 ms and " + MAX_SEARCH_TIMEOUT
                        + " (one day), got " + timeout);
            }
            this.searchTimeout = timeout;
            return this;
        }

        /**
         * Sets {@link FileToolSettings#readTotalsMaxBytes()}.
         *
         * @param v bytes, 0 or more (0 = only when the page reaches the end)
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder readTotalsMaxBytes(long v) {
            this.readTotalsMaxBytes = atLeast("readTotalsMaxBytes", v, 0, "bytes");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#readMaxFiles()}.
         *
         * @param v files, 1 to {@value FileToolSettings#MAX_READ_MAX_FILES}
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder readMaxFiles(int v) {
            this.readMaxFiles = (int) between("readMaxFiles", v, 1, MAX_READ_MAX_FILES, "files");
            return this;
        }

        /**
         * Sets {@link FileToolSettings#binaryReadMaxBytes()}.
         *
         * @param v bytes, at least 1
         * @return this
         * @throws IllegalArgumentException when {@code v} is out of range
         */
        public Builder binaryReadMaxBytes(int v) {
            this.binaryReadMaxBytes = (int) atLeast("binaryReadMaxBytes", v, 1, "bytes");
            return this;
        }

        /**
         * Checks what several settings must satisfy together (each default at most its maximum) and builds.
         *
         * @return the settings
         * @throws IllegalArgumentException naming both settings when a default exceeds its maximum
         */
        public FileToolSettings build() {
            notAbove("readDefaultChars", readDefaultChars, "readMaxChars", readMaxChars);
            notAbove("defaultMaxDepth", defaultMaxDepth, "maxDepthLimit", maxDepthLimit);
            notAbove("findDefaultLimit", findDefaultLimit, "findMaxLimit", findMaxLimit);
            notAbove("grepDefaultLimit", grepDefaultLimit, "grepMaxLimit", grepMaxLimit);
            return new FileToolSettings(this);
        }
    }
}
