/**
 * Implementation details shared by the WorkTarget modules. Not API: anything here may change in any
 * release. Use the types of {@code org.vancetope.worktarget.core} and {@code org.vancetope.worktarget.spi}.
 */
package org.vancetope.worktarget.core.internal;
