#include "search/file_types.h"

#include <algorithm>
#include <array>

namespace msb {
namespace {

// In name order (find_file_type searches it by halves).
constexpr std::array kTypes{
    FileType{"asm", "*.S,*.asm,*.s"},
    FileType{"c", "*.[chH],*.[chH].in,*.cats"},
    FileType{"clojure", "*.clj,*.cljc,*.cljs,*.cljx"},
    FileType{"cmake", "*.cmake,CMakeLists.txt"},
    FileType{"config", "*.cfg,*.conf,*.config,*.ini"},
    FileType{"cpp",
             "*.[ChH],*.[ChH].in,*.[ch]pp,*.[ch]pp.in,*.[ch]xx,*.[ch]xx.in,*.cc,*.cc.in,*.hh,"
             "*.hh.in,*.inl"},
    FileType{"cs", "*.cs"},
    FileType{"css", "*.css,*.scss"},
    FileType{"csv", "*.csv"},
    FileType{"dart", "*.dart"},
    FileType{"docker", "*Dockerfile*"},
    FileType{"elixir", "*.eex,*.ex,*.exs"},
    FileType{"erlang", "*.erl,*.hrl"},
    FileType{"go", "*.go"},
    FileType{"h", "*.h,*.hpp"},
    FileType{"haskell", "*.c2hs,*.cpphs,*.hs,*.hsc,*.lhs"},
    FileType{"html", "*.ejs,*.htm,*.html"},
    FileType{"java", "*.java,*.jsp,*.jspx,*.properties"},
    FileType{"js", "*.cjs,*.js,*.jsx,*.mjs,*.vue"},
    FileType{"json", "*.json,composer.lock"},
    FileType{"jsonl", "*.jsonl"},
    FileType{"kotlin", "*.kt,*.kts"},
    FileType{"lua", "*.lua"},
    FileType{"make",
             "*.mak,*.mk,[Gg][Nn][Uu]makefile,[Gg][Nn][Uu]makefile.am,[Gg][Nn][Uu]makefile.in,"
             "[Mm]akefile,[Mm]akefile.am,[Mm]akefile.in"},
    FileType{"markdown", "*.markdown,*.md,*.mdown,*.mkdn"},
    FileType{"md", "*.markdown,*.md,*.mdown,*.mkdn"},
    FileType{"nix", "*.nix"},
    FileType{"php", "*.php,*.php3,*.php4,*.php5,*.phtml"},
    FileType{"protobuf", "*.proto"},
    FileType{"py", "*.py,*.pyi"},
    FileType{"ruby", "*.gemspec,*.rb,*.rbw,.irbrc,Gemfile,Rakefile,config.ru"},
    FileType{"rust", "*.rs"},
    FileType{"scala", "*.sbt,*.scala"},
    FileType{"sh",
             "*.bash,*.bashrc,*.csh,*.cshrc,*.ksh,*.kshrc,*.sh,*.tcsh,*.zsh,.bash_login,"
             ".bash_logout,.bash_profile,.bashrc,.cshrc,.kshrc,.login,.logout,.profile,.tcshrc,"
             ".zlogin,.zlogout,.zprofile,.zshenv,.zshrc,bash_login,bash_logout,bash_profile,"
             "bashrc,profile,zlogin,zlogout,zprofile,zshenv,zshrc"},
    FileType{"sql", "*.psql,*.sql"},
    FileType{"svg", "*.svg"},
    FileType{"swift", "*.swift"},
    FileType{"toml", "*.toml,Cargo.lock"},
    FileType{"ts", "*.cts,*.mts,*.ts,*.tsx"},
    FileType{"txt", "*.txt"},
    FileType{"xml", "*.dtd,*.rng,*.sch,*.xhtml,*.xjb,*.xml,*.xml.dist,*.xsd,*.xsl,*.xslt"},
    FileType{"yaml", "*.yaml,*.yml"},
    FileType{"zig", "*.zig"},
};

}  // namespace

std::span<const FileType> file_types() noexcept {
  return kTypes;
}

const FileType* find_file_type(std::string_view name) noexcept {
  const auto* it =
      std::lower_bound(kTypes.begin(), kTypes.end(), name,
                       [](const FileType& t, std::string_view n) { return t.name < n; });
  return it != kTypes.end() && it->name == name ? &*it : nullptr;
}

}  // namespace msb
