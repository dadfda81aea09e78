# ctest BuildCommit.ReadAtEveryBuild: cmake/build_commit.cmake in a scratch git repository
# (-DSCRIPT=<the script> -DWORK=<scratch folder> -P this file). The generated source names the
# commit being built and whether the tree has changes, follows a new commit, and is not rewritten
# (so nothing recompiles) when nothing changed.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/repo")
set(repo "${WORK}/repo")
set(ENV{GIT_CEILING_DIRECTORIES} "${WORK}")  # not the checkout the scratch folder lies in
set(out "${WORK}/build_commit.cpp")

function(git)
  execute_process(COMMAND git -c user.name=test -c user.email=test@example.com ${ARGN}
                  WORKING_DIRECTORY "${repo}" RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
  if(failed)
    message(FATAL_ERROR "git ${ARGN} failed")
  endif()
endfunction()

function(head_commit var)
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${repo}"
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${var} "${commit}" PARENT_SCOPE)
endfunction()

function(generate)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${repo} -DOUTPUT=${out} -P "${SCRIPT}"
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${SCRIPT} failed")
  endif()
endfunction()

function(expect commit dirty)
  file(READ "${out}" text)
  foreach(wanted "return \"${commit}\";" "return ${dirty};")
    string(FIND "${text}" "${wanted}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "expected '${wanted}' in the generated source:\n${text}")
    endif()
  endforeach()
endfunction()

generate()
expect("unknown" "false")  # not a git checkout yet

git(init -q)
file(WRITE "${repo}/a.txt" "one\n")
git(add a.txt)
git(commit -q -m one)
head_commit(first)
generate()
expect("${first}" "false")

file(WRITE "${repo}/a.txt" "two\n")  # a change not committed
generate()
expect("${first}" "true")

git(commit -q -a -m two)
head_commit(second)
if(second STREQUAL first)
  message(FATAL_ERROR "the second commit has the first's hash")
endif()
generate()
expect("${second}" "false")

file(TIMESTAMP "${out}" before "%s")
execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
generate()
file(TIMESTAMP "${out}" after "%s")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the generated source was rewritten though nothing changed")
endif()
