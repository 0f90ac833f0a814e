package org.vancetope.worktarget.core;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The limits of the file tools ({@code file_read} … {@code file_delete}), shared by every backend that
 * runs them. Immutable; start from {@link #defaults()} or {@link #builder()}, change with
 * {@link #toBuilder()}; {@link Builder#build()} validates.
 *
 * <pre>{@code
 * FileToolSettings settings = FileToolSettings.builder()
 *         .grepMaxFileBytes(4L << 20)
 *         .findDefaultLimit(100)
 *         .build();
 * }</pre>
 *
 * <p>The settings bound what one call returns, what it looks at, how much memory and time it may take;
 * they do not limit how often tools are called. No single call may take the process (or a daemon's
 * connection) down: results are capped in bytes ({@code resultMaxBytes}) as well as in counts,
 * whole-file operations in memory ({@code wholeFileMaxBytes}), walks and searches in time
 * ({@code searchTimeoutMillis}), and a {@code file_read} page costs about the page
 * ({@code readTotalsMaxBytes}).
 *
 * @param readDefaultChars {@code file_read}: characters returned when {@code maxChars} is absent (spec default 8,000)
 * @param readMaxChars {@code file_read}: the largest accepted {@code maxChars} (default 100,000)
 * @param headTailMaxLines {@code file_head_tail}: the largest {@code head} and {@code tail} (spec: 5,000)
 * @param listMaxEntries {@code file_list}: entries returned before the listing is marked truncated (default 1,000)
 * @param defaultMaxDepth {@code file_find}/{@code file_grep}/{@code file_count}: default {@code maxDepth} (spec: 12)
 * @param maxDepthLimit the largest accepted {@code maxDepth} (default 64)
 * @param findDefaultLimit {@code file_find}: default {@code limit} (spec: 200)
 * @param findMaxLimit {@code file_find}: the largest {@code limit} (spec: 2,000)
 * @param grepDefaultLimit {@code file_grep}: default {@code limit} (spec: 200)
 * @param grepMaxLimit {@code file_grep}: the largest {@code limit} (spec: 1,000)
 * @param grepMaxFileBytes {@code file_grep}: files larger than this are skipped and counted (spec: 2 MiB)
 * @param grepLineClipChars {@code file_grep}: longer lines are clipped with a marker (spec: 600)
 * @param grepMaxContext {@code file_grep}: the largest {@code contextBefore}/{@code contextAfter} (default 20)
 * @param editDiffMaxLines {@code file_edit}: lines of the diff shown in the result (default 40)
 * @param maxPathLength the longest accepted path, in characters (default 4,096)
 * @param maxComponentLength the longest accepted path component, in characters (default 255)
 * @param generatedDirNames directory names pruned from walks unless {@code includeGenerated}
 *        (default {@link #DEFAULT_GENERATED_DIRS})
 * @param parallelism threads of one walk or search (default: available processors); every call gets threads
 *        of its own, so concurrent calls never wait for each other's workers
 * @param resultMaxBytes the most bytes of compact UTF-8 JSON the variable part of one result may take: the
 *        {@code matches} of {@code file_grep} (context lines included), the {@code files} of
 *        {@code file_find}, the {@code entries} of {@code file_list}, the {@code content} of {@code file_read},
 *        {@code head} + {@code tail} of {@code file_head_tail}; beyond it the result is cut, {@code truncated}
 *        is true and a {@code hint} says how to get the rest (default {@value #DEFAULT_RESULT_MAX_BYTES},
 *        1 MiB, well under the 2 MiB WebSocket frame a daemon's result must fit in; at least 1,024)
 * @param wholeFileMaxBytes the largest file {@code file_edit} loads and the largest content (UTF-8 bytes)
 *        {@code file_write} or an edit writes; larger ones fail {@code size_limit} before anything is read or
 *        written (default {@link #heapDerivedWholeFileMaxBytes()}: 1/8 of the JVM's maximum heap, at most
 *        1 GiB)
 * @param searchTimeoutMillis the deadline of one {@code file_grep}, {@code file_find} or {@code file_count}
 *        call, enforced inside regex matching; past it the call fails {@code timeout}, and a cancelled call
 *        (its thread interrupted) fails {@code cancelled}, in both cases with every thread of the call
 *        stopped (default 30,000 ms: below the 60 s a DAEMON call waits, so the caller sees why)
 * @param readTotalsMaxBytes how far {@code file_read} reads on past the page to count {@code totalLines} and
 *        {@code totalChars}; a file whose end lies further gives {@code null} totals and
 *        {@code totalsKnown: false}, so a page costs about the page, not the file (default 16 MiB; 0 = only
 *        when the page reaches the end)
 */
public record FileToolSettings(int readDefaultChars, int readMaxChars, int headTailMaxLines, int listMaxEntries,
                               int defaultMaxDepth, int maxDepthLimit, int findDefaultLimit, int findMaxLimit,
                               int grepDefaultLimit, int grepMaxLimit, long grepMaxFileBytes, int grepLineClipChars,
                               int grepMaxContext, int editDiffMaxLines, int maxPathLength, int maxComponentLength,
                               Set<String> generatedDirNames, int parallelism, int resultMaxBytes,
                               long wholeFileMaxBytes, long searchTimeoutMillis, long readTotalsMaxBytes) {

    /** The default {@code resultMaxBytes}: 1 MiB. */
    public static final int DEFAULT_RESULT_MAX_BYTES = 1 << 20;
    /** The default {@code searchTimeoutMillis}: 30 s. */
    public static final long DEFAULT_SEARCH_TIMEOUT_MILLIS = 30_000;
    /** The default {@code readTotalsMaxBytes}: 16 MiB. */
    public static final long DEFAULT_READ_TOTALS_MAX_BYTES = 16L << 20;
    /** The largest {@code wholeFileMaxBytes}: what one Java array can hold. */
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

    /** Validates and copies. */
    public FileToolSettings {
        positive("readDefaultChars", readDefaultChars);
        positive("readMaxChars", readMaxChars);
        if (readDefaultChars > readMaxChars) {
            throw new IllegalArgumentException("readDefaultChars must not exceed readMaxChars");
        }
        positive("headTailMaxLines", headTailMaxLines);
        positive("listMaxEntries", listMaxEntries);
        if (defaultMaxDepth < 0 || maxDepthLimit < defaultMaxDepth) {
            throw new IllegalArgumentException("need 0 <= defaultMaxDepth <= maxDepthLimit");
        }
        positive("findDefaultLimit", findDefaultLimit);
        if (findMaxLimit < findDefaultLimit) {
            throw new IllegalArgumentException("findMaxLimit must be at least findDefaultLimit");
        }
        positive("grepDefaultLimit", grepDefaultLimit);
        if (grepMaxLimit < grepDefaultLimit) {
            throw new IllegalArgumentException("grepMaxLimit must be at least grepDefaultLimit");
        }
        if (grepMaxFileBytes < 1 || grepMaxFileBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("grepMaxFileBytes must be between 1 and 2 GiB");
        }
        positive("grepLineClipChars", grepLineClipChars);
        if (grepMaxContext < 0) {
            throw new IllegalArgumentException("grepMaxContext must not be negative");
        }
        positive("editDiffMaxLines", editDiffMaxLines);
        positive("maxPathLength", maxPathLength);
        positive("maxComponentLength", maxComponentLength);
        generatedDirNames = Set.copyOf(generatedDirNames);
        positive("parallelism", parallelism);
        if (resultMaxBytes < 1024) {
            throw new IllegalArgumentException("resultMaxBytes must be at least 1024, got " + resultMaxBytes);
        }
        if (wholeFileMaxBytes < 1 || wholeFileMaxBytes > WHOLE_FILE_LIMIT) {
            throw new IllegalArgumentException("wholeFileMaxBytes must be between 1 and " + WHOLE_FILE_LIMIT + ", got "
                    + wholeFileMaxBytes);
        }
        positive("searchTimeoutMillis", searchTimeoutMillis);
        if (readTotalsMaxBytes < 0) {
            throw new IllegalArgumentException("readTotalsMaxBytes must not be negative, got " + readTotalsMaxBytes);
        }
    }

    /**
     * The default {@code wholeFileMaxBytes} of this JVM: 1/8 of {@link Runtime#maxMemory()}, at most 1 GiB
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

    private static void positive(String name, long v) {
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be positive, got " + v);
        }
    }

    /**
     * The spec defaults.
     *
     * @return the default settings
     */
    public static FileToolSettings defaults() {
        return builder().build();
    }

    /**
     * A builder with the spec defaults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these settings.
     *
     * @return the builder
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
        b.searchTimeoutMillis = searchTimeoutMillis;
        b.readTotalsMaxBytes = readTotalsMaxBytes;
        return b;
    }

    /** Builds {@link FileToolSettings}; every setting starts at its spec default. */
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
        private long searchTimeoutMillis = DEFAULT_SEARCH_TIMEOUT_MILLIS;
        private long readTotalsMaxBytes = DEFAULT_READ_TOTALS_MAX_BYTES;

        private Builder() {
        }

        /**
         * Characters {@code file_read} returns when {@code maxChars} is absent (default 8,000).
         *
         * @param v the value
         * @return this
         */
        public Builder readDefaultChars(int v) {
            this.readDefaultChars = v;
            return this;
        }

        /**
         * The largest {@code maxChars} {@code file_read} accepts (default 100,000).
         *
         * @param v the value
         * @return this
         */
        public Builder readMaxChars(int v) {
            this.readMaxChars = v;
            return this;
        }

        /**
         * The largest {@code head} / {@code tail} of {@code file_head_tail} (default 5,000).
         *
         * @param v the value
         * @return this
         */
        public Builder headTailMaxLines(int v) {
            this.headTailMaxLines = v;
            return this;
        }

        /**
         * Entries {@code file_list} returns before it marks the listing truncated (default 1,000).
         *
         * @param v the value
         * @return this
         */
        public Builder listMaxEntries(int v) {
            this.listMaxEntries = v;
            return this;
        }

        /**
         * The default {@code maxDepth} of walks (default 12).
         *
         * @param v the value
         * @return this
         */
        public Builder defaultMaxDepth(int v) {
            this.defaultMaxDepth = v;
            return this;
        }

        /**
         * The largest {@code maxDepth} accepted (default 64).
         *
         * @param v the value
         * @return this
         */
        public Builder maxDepthLimit(int v) {
            this.maxDepthLimit = v;
            return this;
        }

        /**
         * The default {@code limit} of {@code file_find} (default 200).
         *
         * @param v the value
         * @return this
         */
        public Builder findDefaultLimit(int v) {
            this.findDefaultLimit = v;
            return this;
        }

        /**
         * The largest {@code limit} of {@code file_find} (default 2,000).
         *
         * @param v the value
         * @return this
         */
        public Builder findMaxLimit(int v) {
            this.findMaxLimit = v;
            return this;
        }

        /**
         * The default {@code limit} of {@code file_grep} (default 200).
         *
         * @param v the value
         * @return this
         */
        public Builder grepDefaultLimit(int v) {
            this.grepDefaultLimit = v;
            return this;
        }

        /**
         * The largest {@code limit} of {@code file_grep} (default 1,000).
         *
         * @param v the value
         * @return this
         */
        public Builder grepMaxLimit(int v) {
            this.grepMaxLimit = v;
            return this;
        }

        /**
         * Files larger than this are skipped by {@code file_grep} and counted (default 2 MiB).
         *
         * @param v bytes
         * @return this
         */
        public Builder grepMaxFileBytes(long v) {
            this.grepMaxFileBytes = v;
            return this;
        }

        /**
         * Lines longer than this are clipped in {@code file_grep} results (default 600).
         *
         * @param v characters
         * @return this
         */
        public Builder grepLineClipChars(int v) {
            this.grepLineClipChars = v;
            return this;
        }

        /**
         * The largest {@code contextBefore} / {@code contextAfter} (default 20).
         *
         * @param v lines
         * @return this
         */
        public Builder grepMaxContext(int v) {
            this.grepMaxContext = v;
            return this;
        }

        /**
         * Lines of diff in a {@code file_edit} result (default 40).
         *
         * @param v lines
         * @return this
         */
        public Builder editDiffMaxLines(int v) {
            this.editDiffMaxLines = v;
            return this;
        }

        /**
         * The longest accepted path (default 4,096 characters).
         *
         * @param v characters
         * @return this
         */
        public Builder maxPathLength(int v) {
            this.maxPathLength = v;
            return this;
        }

        /**
         * The longest accepted path component (default 255 characters).
         *
         * @param v characters
         * @return this
         */
        public Builder maxComponentLength(int v) {
            this.maxComponentLength = v;
            return this;
        }

        /**
         * The directory names pruned from walks unless {@code includeGenerated} (default
         * {@link #DEFAULT_GENERATED_DIRS}).
         *
         * @param names the names
         * @return this
         */
        public Builder generatedDirNames(Set<String> names) {
            this.generatedDirNames = new TreeSet<>(names);
            return this;
        }

        /**
         * Threads of one walk or search (default: available processors); every call gets its own.
         *
         * @param v threads
         * @return this
         */
        public Builder parallelism(int v) {
            this.parallelism = v;
            return this;
        }

        /**
         * The most bytes of JSON the variable part of one result may take (default
         * {@value FileToolSettings#DEFAULT_RESULT_MAX_BYTES}, at least 1,024); see {@link FileToolSettings}.
         *
         * @param v bytes
         * @return this
         */
        public Builder resultMaxBytes(int v) {
            this.resultMaxBytes = v;
            return this;
        }

        /**
         * The largest file {@code file_edit} loads and the largest content {@code file_write} writes (default
         * {@link FileToolSettings#heapDerivedWholeFileMaxBytes()}: 1/8 of the maximum heap, at most 1 GiB).
         *
         * @param v bytes, 1 to {@link FileToolSettings#WHOLE_FILE_LIMIT}
         * @return this
         */
        public Builder wholeFileMaxBytes(long v) {
            this.wholeFileMaxBytes = v;
            return this;
        }

        /**
         * The deadline of one {@code file_grep}, {@code file_find} or {@code file_count} call (default
         * {@value FileToolSettings#DEFAULT_SEARCH_TIMEOUT_MILLIS} ms).
         *
         * @param v milliseconds
         * @return this
         */
        public Builder searchTimeoutMillis(long v) {
            this.searchTimeoutMillis = v;
            return this;
        }

        /**
         * How far {@code file_read} reads on past the page to count the file's totals (default
         * {@value FileToolSettings#DEFAULT_READ_TOTALS_MAX_BYTES} bytes, 16 MiB; 0 = not at all).
         *
         * @param v bytes
         * @return this
         */
        public Builder readTotalsMaxBytes(long v) {
            this.readTotalsMaxBytes = v;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the settings
         * @throws IllegalArgumentException when a value is out of range
         */
        public FileToolSettings build() {
            return new FileToolSettings(readDefaultChars, readMaxChars, headTailMaxLines, listMaxEntries,
                    defaultMaxDepth, maxDepthLimit, findDefaultLimit, findMaxLimit, grepDefaultLimit, grepMaxLimit,
                    grepMaxFileBytes, grepLineClipChars, grepMaxContext, editDiffMaxLines, maxPathLength,
                    maxComponentLength, generatedDirNames, parallelism, resultMaxBytes, wholeFileMaxBytes,
                    searchTimeoutMillis, readTotalsMaxBytes);
        }
    }
}
