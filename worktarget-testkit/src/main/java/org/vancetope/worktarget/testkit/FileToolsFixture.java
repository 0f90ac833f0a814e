package org.vancetope.worktarget.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.JsonValues;
import org.vancetope.worktarget.core.internal.ParameterGuard;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * A backend's file tools under test, plus direct access to the directory they work in, for
 * {@link FileToolsContract}: call a tool by its wrapper name ({@code "file_read"}), create fixture
 * files behind the tools' back, and look at what the tools did.
 *
 * <pre>{@code
 * FileToolsFixture f = FileToolsFixture.of(backend.tools(), workDir, ctx);
 * f.write("src/A.java", "class A {}");
 * Map<String, Object> r = f.call("file_read", "path", "src/A.java");
 * }</pre>
 */
public final class FileToolsFixture {
    private final Map<String, BackendTool> tools;
    private final Path workDir;
    private final ToolContext context;

    private FileToolsFixture(Map<String, BackendTool> tools, Path workDir, ToolContext context) {
        this.tools = tools;
        this.workDir = workDir;
        this.context = context;
    }

    /**
     * A fixture over a backend's tools.
     *
     * @param tools the backend's tools; each {@code *file_xxx} tool is found by its wrapper suffix
     * @param workDir the directory the tools see as {@code "."}
     * @param context the caller the tools are invoked as
     * @return the fixture
     */
    public static FileToolsFixture of(List<BackendTool> tools, Path workDir, ToolContext context) {
        Map<String, BackendTool> byOp = new LinkedHashMap<>();
        for (BackendTool t : tools) {
            String n = t.spec().name();
            int i = n.indexOf("file_");
            if (i >= 0) {
                byOp.put(n.substring(i), t);
            }
        }
        List<String> missing = ToolCatalog.wrappers().stream().map(ToolSpec::name)
                .filter(n -> n.startsWith("file_") && !byOp.containsKey(n)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("The backend under test has no tool for " + missing + " (a tool is "
                    + "found by its name's file_xxx suffix, e.g. client_file_read); FileToolsContract checks every "
                    + "file tool of the catalog. Return all of them from createTools.");
        }
        return new FileToolsFixture(byOp, Objects.requireNonNull(workDir, "workDir"),
                Objects.requireNonNull(context, "context"));
    }

    /**
     * The directory the tools see as {@code "."}.
     *
     * @return the work directory
     */
    public Path workDir() {
        return workDir;
    }

    /**
     * Calls a tool.
     *
     * @param op the wrapper name, e.g. {@code "file_grep"}
     * @param keyValues parameter names and values, alternating
     * @return the result
     * @throws ToolException the tool's failure
     */
    public Map<String, Object> call(String op, Object... keyValues) throws ToolException {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.put((String) keyValues[i], keyValues[i + 1]);
        }
        return call(op, p);
    }

    /**
     * Calls a tool with a parameter map, after the parameter guard the dispatcher runs before every call
     * (backend tools do not repeat it).
     *
     * @param op the wrapper name
     * @param params the parameters
     * @return the result
     * @throws ToolException the tool's failure
     */
    public Map<String, Object> call(String op, Map<String, Object> params) throws ToolException {
        BackendTool t = tools.get(op);
        if (t == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, "the backend under test has no tool for " + op);
        }
        ParameterGuard.check(ToolCatalog.wrapper(op).orElse(t.spec()), t.spec(), params, "the backend under test");
        // any Number is a valid result value; compared in the shape the dispatcher hands out (Integer when it fits)
        return JsonValues.normalized(t.invoke(params, context));
    }

    /**
     * Calls a tool that must fail.
     *
     * @param op the wrapper name
     * @param keyValues parameter names and values
     * @return the failure
     */
    public ToolException failure(String op, Object... keyValues) {
        try {
            call(op, keyValues);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(op + " should have failed");
    }

    /**
     * A path below the work directory.
     *
     * @param rel a '/'-separated relative path
     * @return the path
     */
    public Path path(String rel) {
        Path p = workDir;
        for (String part : rel.split("/")) {
            if (!part.isEmpty()) {
                p = p.resolve(part);
            }
        }
        return p;
    }

    /**
     * Creates a file (and its parents) behind the tools' back.
     *
     * @param rel the relative path
     * @param content UTF-8 content
     * @return the file
     * @throws IOException on failure
     */
    public Path write(String rel, String content) throws IOException {
        return write(rel, content.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Creates a file with raw bytes.
     *
     * @param rel the relative path
     * @param bytes the content
     * @return the file
     * @throws IOException on failure
     */
    public Path write(String rel, byte[] bytes) throws IOException {
        Path p = path(rel);
        Files.createDirectories(p.getParent());
        return Files.write(p, bytes);
    }

    /**
     * Creates a directory.
     *
     * @param rel the relative path
     * @return the directory
     * @throws IOException on failure
     */
    public Path mkdir(String rel) throws IOException {
        return Files.createDirectories(path(rel));
    }

    /**
     * Reads a file behind the tools' back.
     *
     * @param rel the relative path
     * @return its UTF-8 content
     * @throws IOException on failure
     */
    public String read(String rel) throws IOException {
        return Files.readString(path(rel));
    }
}
