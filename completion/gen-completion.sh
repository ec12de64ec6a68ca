#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the bash completion of one tool, made from its option table: the tool prints its
# rows with the hidden option --p2ps-option-table (src/common/options.h).
#
#   gen-completion.sh TOOL-BINARY NAME [SUBCOMMAND[+EXTRA-ARGS]...] > completion-file
#
# Without SUBCOMMANDs the tool has one table. With them, each names a command whose table
# is asked for with `TOOL SUBCOMMAND [EXTRA-ARGS] --p2ps-option-table` (several entries
# for one command are merged: pte-decode's decode has a table for values and one for
# dumps, `decode+--raw+-`); a leading "-" (as "-report") marks a command that is
# optional, the tool's own options then forming the table of no command.
#
# What an option's argument completes to comes from the row's argument name:
#   a|b|c              those words            FILE, *.json   files ("|-" adds "-")
#   DIR                folders                BDF, a -s slot  NVIDIA GPUs' PCI addresses
#                                                             (a list when it has ",")
# GPU addresses are read from $P2PS_SYSFS_ROOT/sys/bus/pci/devices (vendor 0x10de).
set -euo pipefail
tool=$1
name=$2
shift 2
fn=_p2ps_${name//-/_}

# kind and words for one argument name (and the option's name)
classify() { # opt arg
	local opt=$1 arg=$2 words=""
	case $arg in
	"") echo "none|" ;;
	*BDF* | "[[[["* | A,B*)
		local w
		IFS='|' read -ra parts <<<"$arg"
		for w in "${parts[@]}"; do
			[[ $w =~ ^[a-z][a-z0-9-]*$ ]] && words+="$w "
		done
		if [[ $arg == *,* ]]; then echo "gpulist|${words% }"; else echo "gpu|${words% }"; fi
		;;
	*FILE* | *.json)
		[[ $arg == *"|-"* ]] && words="-"
		echo "file|$words"
		;;
	DIR) echo "dir|" ;;
	*)
		if [[ $arg =~ ^[a-z0-9-]+(\|[a-z0-9-]+)+$ ]]; then
			echo "values|${arg//|/ }"
		else
			echo "none|"
		fi
		;;
	esac
	: "$opt"
}

declare -A optwords argkind
cmds=()
optional=0
emit_table() { # key args...
	local key=$1 oname short arg help k
	shift
	while IFS=$'\x1f' read -r oname short arg help; do
		[ -n "$oname" ] || continue
		optwords[$key]+=" --$oname"
		[ "$short" = - ] || optwords[$key]+=" -$short"
		k=$(classify "$oname" "$arg")
		if [ -n "$arg" ]; then
			argkind["$key --$oname"]=$k
			[ "$short" = - ] || argkind["$key -$short"]=$k
		fi
		: "$help"
	done < <("$tool" "$@" --p2ps-option-table | tr '\t' '\037')
}

if [ $# -eq 0 ] || [[ " $* " == *" -"* ]]; then
	emit_table "." # the tool's own options (before an optional command)
fi
if [ $# -gt 0 ]; then
	for spec in "$@"; do
		[[ $spec == -* ]] && { optional=1; spec=${spec#-}; }
		IFS='+' read -ra a <<<"$spec"
		[[ " ${cmds[*]} " == *" ${a[0]} "* ]] || cmds+=("${a[0]}")
		emit_table "${a[0]}" "${a[@]}"
	done
fi

cat <<EOF
# SPDX-License-Identifier: MIT
# bash completion for $name, generated from its option table by completion/gen-completion.sh
# (p2pscope). GPU addresses come from \${P2PS_SYSFS_ROOT}/sys/bus/pci/devices, vendor 0x10de.
# shellcheck disable=SC2207 # COMPREPLY=(\$(compgen ...)): words split at IFS, as meant

_p2ps_gpu_addrs() {
	local d v
	for d in "\${P2PS_SYSFS_ROOT:-}"/sys/bus/pci/devices/*; do
		[ -r "\$d/vendor" ] || continue
		read -r v <"\$d/vendor" || continue
		[ "\$v" = 0x10de ] && printf '%s\n' "\${d##*/}"
	done
	return 0
}

# _p2ps_complete_arg KIND WORDS CUR: the completions of an option's argument.
_p2ps_complete_arg() {
	local kind=\$1 words=\$2 cur=\$3 pre="" IFS=\$'\n'
	case \$kind in
	values) COMPREPLY=(\$(IFS=' '; compgen -W "\$words" -- "\$cur")) ;;
	file)
		compopt -o filenames 2>/dev/null
		COMPREPLY=(\$(compgen -f -- "\$cur") \$(IFS=' '; compgen -W "\$words" -- "\$cur")) ;;
	dir)
		compopt -o filenames 2>/dev/null
		COMPREPLY=(\$(compgen -d -- "\$cur")) ;;
	gpu | gpulist)
		[ "\$kind" = gpulist ] && [[ \$cur == *,* ]] && pre=\${cur%,*}, && cur=\${cur##*,}
		COMPREPLY=(\$(compgen -P "\$pre" -W "\$(_p2ps_gpu_addrs; tr ' ' '\\n' <<<"\$words")" -- "\$cur")) ;;
	*) COMPREPLY=() ;;
	esac
}

# _p2ps_complete OPTWORDS-VAR ARGKIND-VAR COMMANDS OPTIONAL: the whole completion, from
# COMP_LINE and COMP_POINT (the current word taken whole, ':' and '=' included).
_p2ps_complete() {
	local -n _ow=\$1 _ak=\$2
	local cmds=\$3 optional=\$4 line=\${COMP_LINE:0:COMP_POINT} cur prev cmd=. i w
	local -a words
	read -ra words <<<"\$line"
	if [[ \$line == *[[:space:]] ]]; then
		cur=""
	else
		cur=\${words[-1]:-}
		unset 'words[-1]'
	fi
	prev=\${words[-1]:-}
	for ((i = 1; i < \${#words[@]}; i++)); do
		w=\${words[i]}
		if [ -n "\$cmds" ] && [[ " \$cmds " == *" \$w "* ]]; then
			cmd=\$w
			break
		fi
	done
	local full=\$cur kind
	if [[ \$cur == --*=* ]]; then
		prev=\${cur%%=*}
		cur=\${cur#*=}
		full=\$cur
	elif [[ \$cur != -* ]] && [ -n "\${_ak["\$cmd \$prev"]:-}" ]; then
		:
	else
		prev=""
	fi
	if [ -n "\$prev" ] && [ -n "\${_ak["\$cmd \$prev"]:-}" ]; then
		kind=\${_ak["\$cmd \$prev"]}
		_p2ps_complete_arg "\${kind%%|*}" "\${kind#*|}" "\$cur"
	elif [ -n "\$cmds" ] && [ "\$cmd" = . ] && [[ \$cur != -* || \$optional = 0 ]]; then
		COMPREPLY=(\$(compgen -W "\$cmds \${_ow["."]:-}" -- "\$cur"))
	else
		COMPREPLY=(\$(compgen -W "\${_ow["\$cmd"]:-}" -- "\$cur"))
	fi
	# bash splits the word at ':' (COMP_WORDBREAKS): reply with what follows the last one.
	if [[ \$full == *:* && \$COMP_WORDBREAKS == *:* ]]; then
		local strip=\${full%"\${full##*:}"}
		COMPREPLY=("\${COMPREPLY[@]#"\$strip"}")
	fi
	return 0
}

EOF
echo "declare -gA ${fn}_opts=("
for k in "${!optwords[@]}"; do
	# one word once (a command's tables may share rows)
	uniq=$(tr ' ' '\n' <<<"${optwords[$k]}" | awk 'NF && !seen[$0]++' | tr '\n' ' ')
	printf '\t[%q]=%q\n' "$k" "${uniq% }"
done | sort
echo ")"
echo "declare -gA ${fn}_args=("
for k in "${!argkind[@]}"; do printf '\t[%q]=%q\n' "$k" "${argkind[$k]}"; done | sort
echo ")"
cat <<EOF

$fn() {
	_p2ps_complete ${fn}_opts ${fn}_args "${cmds[*]}" $optional
}
complete -F $fn $name
EOF
