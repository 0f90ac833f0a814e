/**
 * Per-scope HOME directories for agent subprocesses (spec 003) and the sealed child environment:
 * scope resolution from the settings cascade, the homes tree, the size budget and maintenance on
 * project/user delete and rename. Not API.
 */
package org.vancetope.worktarget.core.internal.home;
