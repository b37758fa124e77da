//! The commands the declarations make. Every operation of the table that has an endpoint and
//! no command written for it is `queens NAME` (a `_` nests it: `collection_deal` would be
//! `queens collection deal`), made from its declaration ([`library::describe_where`]):
//! FILE is its instance when it takes one, each field of its request is an option
//! (`--field-name`, the field's description its help, the field's type, values and bounds
//! what the option takes), and `--timeout`, `--max-memory` and `--json` are those of every
//! question. The answer is printed by the operation's text when `show.rs` names one, else
//! field by field. An operation added to the table is on the command line with no code
//! written here.
//!
//! `options.rs` turns the request's fields into options and back, `show.rs` prints the answer.

mod options;
mod show;

use std::io::Write;
use std::marker::PhantomData;
use std::time::Instant;

use clap::{ArgMatches, Args, Command, FromArgMatches};
use serde_json::{json, Map, Value};

use queens::ops::{self, library, Member, Visit};
use queens::Error;

use crate::commands::question::{AnswerArgs, InstanceArgs};
use crate::output::Failure;
use crate::runner::{self, Common, Run};
use options::{fields, given, option, sentence};

/// Operations the command line asks under other names, by commands written for them:
/// `mod2_optimum` is `queens mod2 max` and `queens mod2 min-lock`.
const ASKED_OTHERWISE: &[&str] = &["mod2_optimum"];

/// An operation whose command is made from its declaration.
pub(crate) struct Made {
    /// Its name in the table.
    name: &'static str,
    /// Its command's path: the name split at `_`.
    path: Vec<&'static str>,
    /// Its declaration, described ([`library::describe_where`]).
    described: Value,
}

/// The operations of the table with an endpoint that `written` (the commands written by
/// hand) does not ask, each with its declaration.
pub(crate) fn made(written: &Command) -> Vec<Made> {
    struct Served(Vec<&'static str>);
    impl Visit for Served {
        fn visit<O: Member>(&mut self) {
            if O::PATH.is_some() && !ASKED_OTHERWISE.contains(&O::NAME) {
                self.0.push(O::NAME);
            }
        }
    }
    let mut served = Served(Vec::new());
    ops::for_each(&mut served);
    let unwritten: Vec<&'static str> = served
        .0
        .into_iter()
        .filter(|name| {
            let mut at = Some(written);
            for part in name.split('_') {
                at = at.and_then(|c| c.find_subcommand(part));
            }
            at.is_none()
        })
        .collect();
    library::describe_where(|name, _| unwritten.contains(&name))
        .into_iter()
        .zip(&unwritten)
        .map(|(described, &name)| Made {
            name,
            path: name.split('_').collect(),
            described,
        })
        .collect()
}

/// `written` with the made commands beside its own (under a written command where the path
/// starts with one's name).
pub(crate) fn with_made(mut written: Command, made: &[Made]) -> Command {
    for m in made {
        written = place(written, &m.path, command(m));
    }
    written
}

/// `parent` with `leaf` at `path` below it, the commands on the way made where missing.
fn place(parent: Command, path: &[&'static str], leaf: Command) -> Command {
    match path {
        [] | [_] => parent.subcommand(leaf),
        [first, rest @ ..] => {
            if parent.find_subcommand(first).is_some() {
                parent.mut_subcommand(*first, |c| place(c, rest, leaf))
            } else {
                let group = Command::new(*first)
                    .subcommand_required(true)
                    .arg_required_else_help(true);
                parent.subcommand(place(group, rest, leaf))
            }
        }
    }
}

/// The command of one operation.
fn command(m: &Made) -> Command {
    let d = &m.described;
    let mut cmd = Command::new(*m.path.last().unwrap_or(&m.name));
    if d["instance"] == true {
        cmd = InstanceArgs::augment_args(cmd);
    }
    for field in fields(d) {
        cmd = cmd.arg(option(field));
    }
    // Set last: the flattened argument structs set an about text of their own.
    AnswerArgs::augment_args(cmd)
        .about(sentence(&d["summary"]))
        .long_about(None)
}

/// The made command `matches` asks for, and its arguments.
pub(crate) fn asked<'a>(
    made: &'a [Made],
    matches: &'a ArgMatches,
) -> Option<(&'a Made, &'a ArgMatches)> {
    made.iter().find_map(|m| {
        let mut at = matches;
        for part in &m.path {
            match at.subcommand() {
                Some((name, sub)) if name == *part => at = sub,
                _ => return None,
            }
        }
        Some((m, at))
    })
}

/// Runs the made command `m` with its arguments `matches` (the command started at
/// `started`), prints the answer to `out` and returns its exit code.
pub(crate) fn run(
    out: &mut impl Write,
    m: &Made,
    matches: &ArgMatches,
    started: Instant,
) -> Result<u8, Failure> {
    let instance = match m.described["instance"] == true {
        true => Some(InstanceArgs::from_arg_matches(matches).map_err(usage)?),
        false => None,
    };
    let answer = AnswerArgs::from_arg_matches(matches).map_err(usage)?;
    let options = given(&m.described, matches);
    // The operation named `m.name`, found in the table, asked with these arguments.
    struct Runner<'a, W> {
        out: &'a mut W,
        name: &'a str,
        instance: Option<&'a InstanceArgs>,
        answer: &'a AnswerArgs,
        options: &'a Map<String, Value>,
        started: Instant,
        ran: Option<Result<u8, Failure>>,
    }
    impl<W: Write> Visit for Runner<'_, W> {
        fn visit<O: Member>(&mut self) {
            if O::NAME == self.name {
                let asked = Asked::<O> {
                    instance: self.instance,
                    answer: self.answer,
                    options: self.options,
                    op: PhantomData,
                };
                let ran = runner::run_showing(self.out, &asked, self.started, &show::show::<O>);
                self.ran = Some(ran);
            }
        }
    }
    let mut runner = Runner {
        out,
        name: m.name,
        instance: instance.as_ref(),
        answer: &answer,
        options: &options,
        started,
        ran: None,
    };
    ops::for_each(&mut runner);
    runner
        .ran
        .unwrap_or_else(|| Err(Error::internal(format!("{} is not in the table", m.name)).into()))
}

/// A made command's arguments: operation `O`'s question.
struct Asked<'a, O> {
    instance: Option<&'a InstanceArgs>,
    answer: &'a AnswerArgs,
    options: &'a Map<String, Value>,
    op: PhantomData<O>,
}

impl<O: Member> Run for Asked<'_, O> {
    type Op = O;

    fn common(&self) -> Common<'_> {
        self.answer.common()
    }

    fn request(&self) -> Result<O::Request, Error> {
        let mut options = self.options.clone();
        if self.instance.is_some() {
            // A stand-in that the instance FILE holds replaces below.
            options.insert("instance".into(), json!({ "n": 1 }));
        }
        let mut req: O::Request = serde_path_to_error::deserialize(Value::Object(options))
            .map_err(|e| {
                let field = e.path().to_string().replace('_', "-");
                Error::unsupported_at_field(format!("--{field}"), e.into_inner())
            })?;
        if let Some(instance) = self.instance {
            if let Some(slot) = O::instance_mut(&mut req) {
                *slot = instance.load()?;
            }
        }
        Ok(req)
    }
}

/// A clap error as the command's failure (clap prints it and exits with 2).
fn usage(e: clap::Error) -> Failure {
    e.exit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use options::text;

    /// Every operation with an endpoint makes a command that clap accepts (no option named
    /// twice, every value parser sound), whether or not a command is written for it; each
    /// of its request's fields is an option.
    #[test]
    fn every_served_operation_makes_a_sound_command() {
        let none = Command::new("queens");
        let all = made(&none);
        assert!(all.len() >= 15, "{} made", all.len());
        for m in &all {
            assert_eq!(
                m.described["name"], m.name,
                "a description beside another's name"
            );
            let mut cmd = command(m);
            cmd.build();
            cmd.clone().debug_assert();
            for field in fields(&m.described) {
                let name = text(&field["name"]);
                assert!(
                    cmd.get_arguments().any(|a| a.get_id() == name.as_str()),
                    "{}: no option for {name}",
                    m.name
                );
            }
        }
    }

    /// The options given become the request's fields, with the JSON types of the schema.
    #[test]
    fn given_options_become_the_request() {
        let none = Command::new("queens");
        let all = made(&none);
        let generate = all.iter().find(|m| m.name == "generate").expect("generate");
        let cmd = command(generate);
        let m = cmd
            .try_get_matches_from([
                "generate",
                "--kind",
                "completion",
                "--n",
                "8",
                "--count",
                "2",
            ])
            .expect("parses");
        let options = given(&generate.described, &m);
        assert_eq!(options["kind"], "completion");
        assert_eq!(options["n"], 8);
        assert_eq!(options["count"], 2);
        assert!(!options.contains_key("seed"));
    }

    /// An answer with no text of its own is shown one field per line, in the declaration's
    /// order: lists of plain values joined, anything else as its JSON.
    #[test]
    fn an_answer_without_a_text_is_shown_field_by_field() {
        use queens::ops::Operation;
        let req: <ops::Mod2Check as Operation>::Request =
            serde_json::from_value(json!({"instance": {"n": 4, "queens": [[0, 0]]}})).unwrap();
        let (resp, _) = ops::Mod2Check::run(&req, &ops::Context::default()).unwrap();
        let mut out = Vec::new();
        let style = crate::print::Style {
            color: false,
            timeout: None,
        };
        show::show::<ops::Mod2Check>(&mut out, &req, &resp, &style).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..4],
            [
                "state: unlocked",
                "open: [[1,2],[1,3],[2,1],[2,3],[3,1],[3,2]]",
                "n: 4",
                "queens: 1"
            ],
            "{text}"
        );
        assert!(lines[4].starts_with("empty: [{"), "{text}");
    }
}
